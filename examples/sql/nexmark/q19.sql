-- Nexmark q19: the ten highest bids of every auction, with their rank.
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

CREATE TABLE q19 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP(3), extra VARCHAR,
  rank_number BIGINT,
  PRIMARY KEY (auction, rank_number) NOT ENFORCED
) WITH ('connector' = 'blackhole');

INSERT INTO q19
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid
) WHERE rank_number <= 10;
