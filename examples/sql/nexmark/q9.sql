-- Nexmark q9 (winning bids): every auction with its winning bid — the highest bid before the
-- auction expired, the earliest on equal prices — a comma join of auctions and bids ranked per
-- auction (ROW_NUMBER() … <= 1), in the benchmark's own form.
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

CREATE TABLE q9 (
  id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP(3),
  expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR,
  auction BIGINT, bidder BIGINT, price BIGINT, bid_date_time TIMESTAMP(3), bid_extra VARCHAR
) WITH ('connector' = 'blackhole');

INSERT INTO q9
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category, extra,
  auction, bidder, price, bid_date_time, bid_extra
FROM (
  SELECT A.*, B.auction, B.bidder, B.price, B.date_time AS bid_date_time, B.extra AS bid_extra,
    ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rownum
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
)
WHERE rownum <= 1;
