/**
 * The two small charts under the graph, drawn by uPlot: watermark lag per stage (processing
 * time minus the stage's watermark) and throughput (rows per second read from each source and
 * written to each sink), over the job's history.
 */
import uPlot from 'uplot';
import type { History } from './api.ts';

const COLORS = ['#2f6fde', '#2a9d8f', '#d9480f', '#8a5cd1', '#b7791f', '#5c940d', '#c2255c', '#1098ad'];

/** A chart with one series per name. */
class SeriesChart {
  private plot: uPlot | undefined;
  private names: string[] = [];

  constructor(
    private readonly container: HTMLElement,
    private readonly unit: string,
  ) {}

  set(names: readonly string[], xs: readonly number[], ys: readonly (readonly (number | null)[])[]): void {
    const data = [xs.map((x) => x / 1000), ...ys] as uPlot.AlignedData;
    if (this.plot === undefined || names.join('\u0000') !== this.names.join('\u0000')) {
      this.plot?.destroy();
      this.names = [...names];
      const width = Math.max(200, this.container.clientWidth);
      this.plot = new uPlot(
        {
          width,
          height: 112,
          legend: { show: true, live: false },
          cursor: { show: true, points: { show: false } },
          scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max * 1.1)] } },
          axes: [{ size: 28 }, { size: 52, values: (_u, ticks) => ticks.map((t) => `${formatTick(t)}${this.unit}`) }],
          series: [{}, ...names.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length] as string, width: 1.6, spanGaps: false }))],
        },
        data,
        this.container,
      );
    } else {
      this.plot.setData(data);
    }
  }
}

function formatTick(t: number): string {
  if (Math.abs(t) >= 1e6) return `${(t / 1e6).toFixed(1)}M`;
  if (Math.abs(t) >= 1e3) return `${(t / 1e3).toFixed(t >= 1e4 ? 0 : 1)}k`;
  return Number.isInteger(t) ? String(t) : t.toFixed(1);
}

/** Both charts. */
export class Charts {
  private readonly lag: SeriesChart;
  private readonly throughput: SeriesChart;

  constructor(lag: HTMLElement, throughput: HTMLElement) {
    this.lag = new SeriesChart(lag, ' s');
    this.throughput = new SeriesChart(throughput, '');
  }

  update(h: History): void {
    const xs = h.points.map((p) => p.at);
    this.lag.set(
      h.stages,
      xs,
      h.stages.map((s) => h.points.map((p) => (p.lagMs[s] === undefined ? null : (p.lagMs[s] as number) / 1000))),
    );
    const names = [...h.sources.map((s) => `source ${s}`), ...h.sinks.map((s) => `sink ${s}`)];
    this.throughput.set(names, xs, [...h.sources.map((s) => h.points.map((p) => p.sourceRate[s] ?? null)), ...h.sinks.map((s) => h.points.map((p) => p.sinkRate[s] ?? null))]);
  }
}
