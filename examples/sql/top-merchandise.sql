-- The SQL version of examples/orders/top-merchandise.ts: orders summed per merchandise, then a
-- live global Top-10 leaderboard by total quantity (RetractStrategy: SUM is not monotonic).
CREATE TABLE orders (
  merchandiseId BIGINT NOT NULL,
  quantity INT NOT NULL,
  log_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR log_ts AS log_ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'orders.jsonl',
  'format' = 'json'
);

CREATE TABLE leaderboard (
  merchandiseId BIGINT NOT NULL,
  totalQuantity INT NOT NULL,
  ranking BIGINT NOT NULL,
  PRIMARY KEY (ranking) NOT ENFORCED
) WITH ('connector' = 'print');

INSERT INTO leaderboard
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (ORDER BY totalQuantity DESC) AS ranking
  FROM (SELECT merchandiseId, SUM(quantity) AS totalQuantity FROM orders GROUP BY merchandiseId)
) WHERE ranking <= 10;
