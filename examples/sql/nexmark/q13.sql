-- Nexmark q13: bounded side input join (lookup join against a JSON-lines dimension table).
CREATE TABLE bid (
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,
  channel VARCHAR,
  url VARCHAR,
  date_time TIMESTAMP(3),
  extra VARCHAR,
  p_time AS PROCTIME(),
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'bid.jsonl',
  'format' = 'json'
);

CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = 'side_input.jsonl',
  'format' = 'json',
  'lookup.cache' = 'PARTIAL',
  'lookup.partial-cache.max-rows' = '10000'
);

CREATE TABLE q13 (
  auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3), `value` VARCHAR
) WITH ('connector' = 'blackhole');

INSERT INTO q13
SELECT B.auction, B.bidder, B.price, B.date_time, S.`value`
FROM bid B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key;
