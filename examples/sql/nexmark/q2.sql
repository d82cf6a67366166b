-- Nexmark q2 (selection): the bids on a set of auctions (every 123rd).
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

CREATE TABLE q2 (auction BIGINT, price BIGINT) WITH ('connector' = 'blackhole');

INSERT INTO q2
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
