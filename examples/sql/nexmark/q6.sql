-- Nexmark q6 (average selling price by seller): the average closing price of each seller's
-- last 10 closed auctions. The benchmark writes it as AVG(final) OVER (PARTITION BY seller ORDER
-- BY date_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) over the closing prices; Flink rejects
-- that form (an OVER aggregation needs an insert-only input ordered by a time attribute, and the
-- closing prices are an updating GROUP BY result — Flink's Nexmark marks q6 unsupported), and so
-- does Flambda. The same question in a form both accept: a Top-10 per seller by closing time
-- (ROW_NUMBER over the updating closing prices; two auctions closing at the same time rank by
-- price, so the ten do not depend on arrival order), then the average of those ten.
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
SELECT seller, AVG(final) AS avg_price
FROM (
  SELECT seller, final, ROW_NUMBER() OVER (PARTITION BY seller ORDER BY date_time DESC, final DESC) AS rn
  FROM (
    SELECT MAX(B.price) AS final, A.seller, MAX(B.date_time) AS date_time
    FROM auction AS A, bid AS B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
    GROUP BY A.id, A.seller
  ) AS Q
) AS R
WHERE rn <= 10
GROUP BY seller;
