-- Nexmark q20 (expand bid with auction): every bid with the auction it is for, for auctions of
-- category 10 — a regular join, in the benchmark's own form.
CREATE TABLE auction (
  id BIGINT,
  item_name VARCHAR,
  description VARCHAR,
  initial_bid BIGINT,
  reserve BIGINT,
  date_time TIMESTAMP(3),
  expires TIMESTAMP(3),
  seller BIGINT,
  category BIGINT,
  extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'auction.jsonl', 'format' = 'json');

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

CREATE TABLE q20 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, bid_date_time TIMESTAMP(3), bid_extra VARCHAR,
  item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, auction_date_time TIMESTAMP(3), expires TIMESTAMP(3),
  seller BIGINT, category BIGINT, auction_extra VARCHAR
) WITH ('connector' = 'blackhole');

INSERT INTO q20
SELECT auction, bidder, price, channel, url, B.date_time, B.extra,
  item_name, description, initial_bid, reserve, A.date_time, expires, seller, category, A.extra
FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10;
