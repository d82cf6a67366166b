-- Nexmark q6 (average selling price by seller): the average of each seller's last 10 closing
-- prices, in the benchmark's form. Like Flink (whose Nexmark marks q6 unsupported), Flambda
-- rejects it: the closing prices are an updating GROUP BY result and an OVER aggregation takes
-- insert-only input.
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

CREATE TABLE q6 (seller BIGINT, avg_price BIGINT) WITH ('connector' = 'blackhole');

INSERT INTO q6
SELECT Q.seller, AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.date_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM (
  SELECT MAX(B.price) AS final, A.seller, MAX(B.date_time) AS date_time
  FROM auction AS A, bid AS B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
  GROUP BY A.id, A.seller
) AS Q;
