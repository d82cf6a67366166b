-- Nexmark q7 (highest bid), as window Top-N: the highest bids of every 10 s TUMBLE window.
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

CREATE TABLE q7 (
  auction BIGINT, price BIGINT, bidder BIGINT, date_time TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3)
) WITH ('connector' = 'blackhole');

INSERT INTO q7
SELECT auction, price, bidder, date_time, window_start, window_end FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
) WHERE rownum <= 1;
