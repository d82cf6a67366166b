-- Nexmark q14 (calculation): bids priced in euros, classified by time of day, with a user function 
-- counting 'c' in extra.
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

CREATE FUNCTION count_char AS 'count-char.ts#countChar';

CREATE TABLE q14 (auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), bidTimeType VARCHAR, date_time TIMESTAMP(3), extra VARCHAR, c_counts BIGINT) WITH ('connector' = 'blackhole');

INSERT INTO q14
SELECT auction, bidder, 0.908 * price AS price,
  CASE
    WHEN HOUR(date_time) >= 8 AND HOUR(date_time) <= 18 THEN 'dayTime'
    WHEN HOUR(date_time) <= 6 OR HOUR(date_time) >= 20 THEN 'nightTime'
    ELSE 'otherTime'
  END AS bidTimeType,
  date_time, extra, count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
