-- Nexmark q1 (currency conversion): bid prices from dollars to euros.
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

CREATE TABLE q1 (auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), date_time TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'blackhole');

INSERT INTO q1
SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM bid;
