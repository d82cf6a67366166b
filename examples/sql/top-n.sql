-- The Top-N seed article's query (Flink 1.12 EXPLAIN example): orders summed per merchandise,
-- then the top 10 per merchandiseId by total quantity.
CREATE TABLE kafka_order_done_log (
  merchandiseId BIGINT NOT NULL,
  quantity INT NOT NULL,
  log_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR log_ts AS log_ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'orders.jsonl',
  'format' = 'json'
);

SELECT * FROM (SELECT *,row_number() OVER(PARTITION BY merchandiseId ORDER BY totalQuantity DESC) AS rownum
FROM (SELECT merchandiseId, sum(quantity) AS totalQuantity FROM kafka_order_done_log GROUP BY merchandiseId)
) WHERE rownum <= 10;
