-- Nexmark q5 (hot items), as window Top-N: bids per auction per HOP window (10 s, slide 2 s);
-- the auctions with the window's highest count (RANK() = 1 keeps ties).
CREATE TABLE bid (
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,
  channel VARCHAR,
  url VARCHAR,
  date_time TIMESTAMP(3),
  extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'bid.jsonl',
  'format' = 'json'
);

CREATE TABLE q5 (
  auction BIGINT, num BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3)
) WITH ('connector' = 'blackhole');

INSERT INTO q5
SELECT auction, num, window_start, window_end FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS rownum
  FROM (
    SELECT auction, count(*) AS num, window_start, window_end
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
    GROUP BY auction, window_start, window_end
  )
) WHERE rownum <= 1;
