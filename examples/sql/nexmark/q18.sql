-- Nexmark q18: the last bid of every bidder on every auction (deduplication).
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

CREATE TABLE q18 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP(3), extra VARCHAR,
  PRIMARY KEY (bidder, auction) NOT ENFORCED
) WITH ('connector' = 'blackhole');

INSERT INTO q18
SELECT auction, bidder, price, channel, url, date_time, extra FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number
  FROM bid
) WHERE rank_number <= 1;
