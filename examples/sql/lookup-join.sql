-- The lookup-join seed (Flink SQL 扩展维表 Keyby): a stream joined with two MySQL dimension
-- tables; jdbc_table2 hashes the stream by the join key ('lookup.enable_hash' = 'true'),
-- jdbc_table3 does not. The Kafka source of the article becomes a Kinesis stream here.
CREATE TABLE kafka_table (
  user_id int,
  order_amount bigint,
  sname String,
  log_ts TIMESTAMP(3),
  proctime as  PROCTIME()
) WITH (
  'connector' = 'kinesis',
  'stream' = 'mqTest02',
  'format' = 'json'
);

CREATE TABLE jdbc_table2 (
  id int,
  name varchar,
  description STRING,
  catalog STRING
) WITH (
  'connector' = 'jdbc',
  'scan.partition.column' = 'id',
  'scan.partition.num' = '2',
  'lookup.enable_hash' = 'true',
  'scan.partition.lower-bound' = '1',
  'scan.partition.upper-bound' = '1000',
  'url' = 'jdbc:mysql://localhost:3306/mqTest?useUnicode=true&characterEncoding=utf-8',
  'username' = 'root',
  'password' = '123456',
  'table-name' = 'test1',
  'lookup.cache' = 'PARTIAL',
  'lookup.partial-cache.max-rows' = '10000',
  'lookup.partial-cache.expire-after-write' = '10 min',
  'lookup.max-retries' = '3'
);

CREATE TABLE jdbc_table3 (
  id int,
  name varchar,
  description STRING,
  catalog STRING
) WITH (
  'connector' = 'jdbc',
  'scan.partition.column' = 'id',
  'scan.partition.num' = '2',
  'lookup.enable_hash' = 'false',
  'scan.partition.lower-bound' = '1',
  'scan.partition.upper-bound' = '1000',
  'url' = 'jdbc:mysql://localhost:3306/mqTest?useUnicode=true&characterEncoding=utf-8',
  'username' = 'root',
  'password' = '123456',
  'table-name' = 'test2'
);

CREATE TABLE fs_table (
  id bigint,
  name STRING,
  s3Name STRING,
  order_amount bigint,
  description STRING
) WITH (
 'connector' = 'print'
);

INSERT INTO fs_table select s1.user_id,s2.name,s3.name,s1.order_amount,s2.description
  from kafka_table s1
  join jdbc_table2 FOR SYSTEM_TIME AS OF s1.proctime AS s2
       ON s1.user_id=s2.id
  join jdbc_table3 FOR SYSTEM_TIME AS OF s1.proctime  AS s3
       ON s1.user_id=s3.id;
