/**
 * The CloudWatch dashboard and alarms of one pipeline: a row of graphs per stage (Lambda's own
 * metrics next to the stage metrics the handler publishes as EMF) and the dead-letter queue.
 *
 * Alarms, per stage: iterator age (the stage falls behind; it must fire long before the
 * stream's retention runs out), Lambda Errors (invocations that threw), FailedBatches (a batch
 * the handler reported failed from a successful invocation, which Lambda's Errors metric never
 * sees: a shard retrying for minutes is blocked), SkippedRanges (the event source mapping
 * discarded an announced range: data was lost); for the pipeline: dead letters waiting in the
 * queue, a failing heartbeat (idle shards stop advancing) and a failing producer of a generator
 * source (its rows stop coming). Every alarm gets the
 * `alarmActions` and, with `alarmTopic`, an SNS action on that topic.
 *
 * The custom metrics are those of shared/aws/stage-metrics.ts, namespace `Flambda`. Powertools
 * Metrics adds a `service` dimension (= its serviceName, the pipeline name in
 * functions/stage-handler.ts) to every metric besides the `Pipeline` and `Stage` defaults, and
 * CloudWatch only matches a metric on its exact dimension set — so the graphs query all three.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STAGE_METRICS } from '../../shared/aws/stage-metrics.ts';

/** Consecutive minutes with failed batches before the FailedBatches alarm fires (one retried throttle is no alarm). */
export const FAILED_BATCH_MINUTES = 3;

/** The EMF namespace the stage handler publishes to (functions/stage-handler.ts). */
export const METRICS_NAMESPACE = 'Flambda';

/** Alarm thresholds and actions. */
export interface PipelineAlarmProps {
  /** Alarm when a stage's maximum iterator age over a minute reaches this. @default Duration.minutes(1) */
  readonly iteratorAgeAlarmThreshold?: Duration;
  /** Alarm when a stage function has this many errors in a minute. @default 1 */
  readonly errorsAlarmThreshold?: number;
  /** Alarm when this many messages are visible in the dead-letter queue. @default 1 */
  readonly deadLetterAlarmThreshold?: number;
  /** Actions of every alarm (e.g. an SNS topic action). @default - no actions */
  readonly alarmActions?: readonly cloudwatch.IAlarmAction[];
  /** An SNS topic every alarm notifies (added to `alarmActions`). @default - none */
  readonly alarmTopic?: sns.ITopic;
}

/** A stage to show. */
export interface DashboardStage {
  readonly id: string;
  readonly function: lambda.IFunction;
}

/** Props of {@link PipelineDashboard}. */
export interface PipelineDashboardProps extends PipelineAlarmProps {
  /** The job graph's name: the `Pipeline` (and `service`) dimension. */
  readonly pipelineName: string;
  readonly stages: readonly DashboardStage[];
  readonly deadLetterQueue: sqs.IQueue;
  /** The heartbeat function, to alarm on its errors. @default - no heartbeat */
  readonly heartbeat?: lambda.IFunction;
  /** The producer functions of generator sources, to alarm on their errors. @default - none */
  readonly producers?: readonly { readonly source: string; readonly function: lambda.IFunction }[];
  /** Whether to create the dashboard (alarms are always created). @default true */
  readonly dashboard?: boolean;
}

/** Per-stage dashboard rows and the alarms of the module documentation. */
export class PipelineDashboard extends Construct {
  /** The dashboard, unless `dashboard` is false. */
  readonly dashboard: cloudwatch.Dashboard | undefined;
  /** Every alarm created. */
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: PipelineDashboardProps) {
    super(scope, id);
    const period = Duration.minutes(1);
    // An empty label leaves the label out: alarms need plain metrics (a label makes a math alarm).
    const custom = (stage: string, name: string, statistic: string, label: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { service: props.pipelineName, Pipeline: props.pipelineName, Stage: stage },
        statistic,
        period,
        ...(label === '' ? {} : { label }),
      });

    const alarms: cloudwatch.Alarm[] = [];
    const iteratorAgeMs = (props.iteratorAgeAlarmThreshold ?? Duration.minutes(1)).toMilliseconds();
    const actions = [...(props.alarmActions ?? []), ...(props.alarmTopic === undefined ? [] : [new cloudwatchActions.SnsAction(props.alarmTopic)])];
    const addAlarm = (alarm: cloudwatch.Alarm): void => {
      for (const action of actions) alarm.addAlarmAction(action);
      alarms.push(alarm);
    };

    const rows: cloudwatch.IWidget[][] = [];
    for (const stage of props.stages) {
      const fn = stage.function;
      // Alarms get metrics without labels: a label turns the alarm into a metric-math alarm.
      const iteratorAge = fn.metric('IteratorAge', { statistic: 'Maximum', period });
      const errors = fn.metricErrors({ period, statistic: 'Sum' });
      addAlarm(
        new cloudwatch.Alarm(this, `IteratorAge-${stage.id}`, {
          alarmDescription: `${props.pipelineName} ${stage.id}: the stage is falling behind its input (iterator age ≥ ${iteratorAgeMs} ms)`,
          metric: iteratorAge,
          threshold: iteratorAgeMs,
          evaluationPeriods: 3,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          // No data means no traffic, not a stuck shard.
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      addAlarm(
        new cloudwatch.Alarm(this, `Errors-${stage.id}`, {
          alarmDescription: `${props.pipelineName} ${stage.id}: the function threw (the whole batch is retried; its shard waits until it succeeds)`,
          metric: errors,
          threshold: props.errorsAlarmThreshold ?? 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      addAlarm(
        new cloudwatch.Alarm(this, `FailedBatches-${stage.id}`, {
          alarmDescription:
            `${props.pipelineName} ${stage.id}: batches failed in each of ${FAILED_BATCH_MINUTES} minutes (reported as batchItemFailures, ` +
            `which Lambda's Errors metric does not count): a shard is blocked until the cause is fixed; see the function's log`,
          metric: custom(stage.id, STAGE_METRICS.failedBatches, 'Sum', ''),
          threshold: 1,
          evaluationPeriods: FAILED_BATCH_MINUTES,
          datapointsToAlarm: FAILED_BATCH_MINUTES,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      addAlarm(
        new cloudwatch.Alarm(this, `SkippedRanges-${stage.id}`, {
          alarmDescription:
            `${props.pipelineName} ${stage.id}: the event source mapping discarded an announced range (retries or record age exhausted): ` +
            `its records were not processed; the dead-letter queue holds its position for a replay`,
          metric: custom(stage.id, STAGE_METRICS.skippedRanges, 'Sum', ''),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      if (props.dashboard === false) continue;

      const hits = custom(stage.id, STAGE_METRICS.lookupCacheHits, 'Sum', 'hits');
      const misses = custom(stage.id, STAGE_METRICS.lookupCacheMisses, 'Sum', 'misses');
      const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []): cloudwatch.GraphWidget =>
        new cloudwatch.GraphWidget({ title: `${stage.id}: ${title}`, left, right, width: 6, height: 6 });
      rows.push([new cloudwatch.TextWidget({ markdown: `### ${stage.id}`, width: 24, height: 1 })]);
      rows.push([
        graph('iterator age (ms)', [iteratorAge.with({ label: 'iterator age (max)' })]),
        graph('invocations, errors, throttles', [fn.metricInvocations({ period }), errors, fn.metricThrottles({ period })]),
        graph('duration (ms)', [fn.metricDuration({ period, statistic: 'p99', label: 'duration p99' }), custom(stage.id, STAGE_METRICS.batchDurationMs, 'p99', 'batch duration p99')]),
        graph('records in / out', [custom(stage.id, STAGE_METRICS.recordsIn, 'Sum', 'in'), custom(stage.id, STAGE_METRICS.recordsOut, 'Sum', 'out')]),
      ]);
      rows.push([
        graph(
          'late, dead-lettered, replays, failed batches, skipped ranges',
          [
            custom(stage.id, STAGE_METRICS.lateRecords, 'Sum', 'late'),
            custom(stage.id, STAGE_METRICS.deadLettered, 'Sum', 'dead-lettered'),
            custom(stage.id, STAGE_METRICS.replays, 'Sum', 'replays'),
            custom(stage.id, STAGE_METRICS.failedBatches, 'Sum', 'failed batches'),
            custom(stage.id, STAGE_METRICS.skippedRanges, 'Sum', 'skipped ranges'),
          ],
        ),
        graph('watermark lag (ms)', [custom(stage.id, STAGE_METRICS.watermarkLagMs, 'Maximum', 'watermark lag (max)')]),
        graph(
          'lookup cache: L1 hit rate (%), L2 hits, source loads',
          [
            new cloudwatch.MathExpression({
              // FILL(…, 0): a period with hits but no misses must still plot (100 %).
              expression: '100 * FILL(hits, 0) / (FILL(hits, 0) + FILL(misses, 0))',
              usingMetrics: { hits, misses },
              label: 'hit rate',
              period,
            }),
          ],
          // Behind the container cache: keys answered by the DynamoDB second level vs loaded from the source.
          [
            custom(stage.id, STAGE_METRICS.lookupL2Hits, 'Sum', 'L2 hits'),
            custom(stage.id, STAGE_METRICS.lookupSourceLoads, 'Sum', 'source loads'),
            custom(stage.id, STAGE_METRICS.lookupCacheEvictions, 'Sum', 'L1 evictions'),
            custom(stage.id, STAGE_METRICS.lookupLoads, 'Sum', 'store requests'),
            custom(stage.id, STAGE_METRICS.lookupLoadTimeMs, 'Sum', 'store time (ms)'),
          ],
        ),
        graph(
          'state reads / writes, state cache',
          [custom(stage.id, STAGE_METRICS.stateReads, 'Sum', 'reads'), custom(stage.id, STAGE_METRICS.stateWrites, 'Sum', 'writes')],
          [custom(stage.id, STAGE_METRICS.stateCacheHits, 'Sum', 'cache hits'), custom(stage.id, STAGE_METRICS.stateCacheMisses, 'Sum', 'cache misses')],
        ),
      ]);
    }

    const dlqDepth = props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
    addAlarm(
      new cloudwatch.Alarm(this, 'DeadLetterDepth', {
        alarmDescription: `${props.pipelineName}: records were dead-lettered or batches skipped; inspect the dead-letter queue`,
        metric: dlqDepth,
        threshold: props.deadLetterAlarmThreshold ?? 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    if (props.heartbeat !== undefined) {
      addAlarm(
        new cloudwatch.Alarm(this, 'HeartbeatErrors', {
          alarmDescription: `${props.pipelineName}: the heartbeat failed repeatedly; idle shards no longer advance their watermark or processing time`,
          metric: props.heartbeat.metricErrors({ period, statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    for (const producer of props.producers ?? []) {
      addAlarm(
        new cloudwatch.Alarm(this, `ProducerErrors-${producer.source}`, {
          alarmDescription: `${props.pipelineName}: the producer of generator source '${producer.source}' failed repeatedly; its rows no longer reach the source stream`,
          metric: producer.function.metricErrors({ period, statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    this.alarms = alarms;

    if (props.dashboard === false) {
      this.dashboard = undefined;
      return;
    }
    rows.push([
      new cloudwatch.GraphWidget({ title: 'dead-letter queue depth', left: [dlqDepth.with({ label: 'DLQ depth' })], width: 12, height: 6 }),
      new cloudwatch.AlarmStatusWidget({ title: 'alarms', alarms, width: 12, height: 6 }),
    ]);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      // Stack name first: two stacks may deploy the same pipeline in one account and region.
      dashboardName: `${Stack.of(this).stackName}-${props.pipelineName}`.replace(/[^A-Za-z0-9_-]/g, '-'),
      widgets: rows,
    });
  }
}
