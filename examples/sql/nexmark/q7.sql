-- Nexmark q7 (highest bid), in the benchmark's own form: the bids whose price is the highest of
-- their 10-second tumbling window, found by joining the bids with each window's MAX(price).
-- (examples/sql/q7.sql writes the same query as a window Top-N.)
CREATE TABLE bid (
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,
  channel VARCHAR,
  url VARCHAR,
  date_time TIMESTAMP(3),
  extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

CREATE TABLE q7 (auction BIGINT, price BIGINT, bidder BIGINT, date_time TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'blackhole');

INSERT INTO q7
SELECT B.auction, B.price, B.bidder, B.date_time, B.extra
FROM bid B
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS date_time
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time;
