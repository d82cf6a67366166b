-- Nexmark q3 (local item suggestion): who is selling in OR, ID or CA in category 10, and for what
-- auction IDs — a regular join of every auction with its seller, in the benchmark's own form.
CREATE TABLE person (
  id BIGINT,
  name VARCHAR,
  email_address VARCHAR,
  credit_card VARCHAR,
  city VARCHAR,
  state VARCHAR,
  date_time TIMESTAMP(3),
  extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'person.jsonl', 'format' = 'json');

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

CREATE TABLE q3 (name VARCHAR, city VARCHAR, state VARCHAR, id BIGINT) WITH ('connector' = 'blackhole');

INSERT INTO q3
SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');
