-- Nexmark q0 (pass through): every bid, unchanged — the cost of reading and writing alone.
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

CREATE TABLE q0 (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'blackhole');

INSERT INTO q0
SELECT auction, bidder, price, date_time, extra FROM bid;
