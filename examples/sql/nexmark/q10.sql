-- Nexmark q10 (log to file system): every bid with its day and minute partition columns.
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

CREATE TABLE q10 (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3), extra VARCHAR, dt VARCHAR, hm VARCHAR) WITH ('connector' = 'blackhole');

INSERT INTO q10
SELECT auction, bidder, price, date_time, extra, DATE_FORMAT(date_time, 'yyyy-MM-dd'), DATE_FORMAT(date_time, 'HH:mm')
FROM bid;
