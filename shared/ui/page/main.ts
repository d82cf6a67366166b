/**
 * The job page: loads the job (GET /api/job), draws its graph, polls the metrics
 * (GET /api/metrics), and refreshes the open panel, the charts and the tapped edge.
 */
import type { DeadLetters, History, JobInfo, Metrics, Tap, ViewEdge, ViewNode } from './api.ts';
import { getJson } from './api.ts';
import { Charts } from './charts.ts';
import { count, duration, rate, usd } from './format.ts';
import { GraphView } from './graph.ts';
import { renderDeadLetters, renderDetails, renderTap, renderWatermarks } from './panels.ts';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

interface PageState {
  job: JobInfo;
  metrics?: Metrics;
  node?: ViewNode;
  edge?: ViewEdge;
  tap?: Tap;
  letters?: DeadLetters;
  tab: string;
}

async function start(): Promise<void> {
  const job = await getJson<JobInfo>('/api/job');
  const state: PageState = { job, tab: 'details' };
  document.title = `${job.name} · flambda`;
  $('job-name').textContent = `${job.name} (${job.runtime})`;
  const graph = new GraphView($('graph') as unknown as SVGSVGElement, job, {
    selectNode: (node) => {
      state.node = node;
      show(state, 'details');
    },
    selectEdge: (edge) => {
      state.edge = edge;
      state.tap = undefined;
      show(state, 'tap');
      void refreshTap(state);
    },
  });
  const charts = new Charts($('chart-lag'), $('chart-rate'));
  for (const button of document.querySelectorAll<HTMLButtonElement>('#tabs button')) {
    button.addEventListener('click', () => show(state, button.dataset.tab ?? 'details'));
  }
  renderDetails($('panel-details'), undefined, job, undefined);
  renderTap($('panel-tap'), undefined, undefined);

  const onMetrics = (m: Metrics): void => {
    state.metrics = m;
    graph.update(m);
    header(state.job, m);
    renderOpen(state);
  };
  const onStatus = (status: string, error: string | null): void => {
    const el = $('job-status');
    el.textContent = status;
    el.className = `status ${status}`;
    if (error) el.title = error;
    if (status !== 'running' && status !== 'starting') {
      void getJson<JobInfo>('/api/job').then((j) => {
        state.job = { ...state.job, ...j, view: state.job.view };
        const el2 = $('job-status');
        if (j.error) el2.title = j.error;
      });
    }
  };
  onStatus(job.status, job.error ?? null);
  // Polling rather than the event stream: an open stream would keep a headless browser's
  // virtual time (and its screenshot) waiting forever.
  let status = job.status;
  const follow = async (): Promise<void> => {
    try {
      const m = await getJson<Metrics>('/api/metrics');
      if (m.status !== status) {
        status = m.status;
        onStatus(status, null);
      }
      onMetrics(m);
    } finally {
      setTimeout(() => void follow(), 500);
    }
  };
  await follow();

  const poll = async (): Promise<void> => {
    try {
      charts.update(await getJson<History>('/api/history'));
      state.letters = await getJson<DeadLetters>('/api/dead-letters');
      const badge = $('dead-count');
      badge.textContent = count(state.letters.total);
      badge.classList.toggle('hot', state.letters.total > 0);
      if (state.tab === 'dead-letters') renderDeadLetters($('panel-dead-letters'), state.letters);
      if (state.tab === 'tap') await refreshTap(state);
    } finally {
      setTimeout(() => void poll(), 1000);
    }
  };
  void poll();
}

async function refreshTap(state: PageState): Promise<void> {
  const edge = state.edge;
  if (edge === undefined) return;
  state.tap = await getJson<Tap>(`/api/taps/${encodeURIComponent(edge.id)}?limit=50`);
  if (state.tab === 'tap' && state.edge === edge) renderTap($('panel-tap'), state.tap, edge.id);
}

function show(state: PageState, tab: string): void {
  state.tab = tab;
  for (const b of document.querySelectorAll<HTMLButtonElement>('#tabs button')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const p of document.querySelectorAll<HTMLElement>('.panel')) p.classList.toggle('active', p.id === `panel-${tab}`);
  renderOpen(state);
}

function renderOpen(state: PageState): void {
  switch (state.tab) {
    case 'details':
      return renderDetails($('panel-details'), state.node, state.job, state.metrics);
    case 'watermarks':
      return renderWatermarks($('panel-watermarks'), state.job, state.metrics);
    case 'tap':
      return renderTap($('panel-tap'), state.tap, state.edge?.id);
    case 'dead-letters':
      return renderDeadLetters($('panel-dead-letters'), state.letters);
  }
}

function header(job: JobInfo, m: Metrics): void {
  const t = m.totals;
  const parts = [
    `<span>elapsed <b>${duration(m.elapsedMs)}</b></span>`,
    `<span>read <b>${count(t.recordsRead)}</b></span>`,
    `<span><b>${rate(t.rate)}</b></span>`,
    `<span>sink rows <b>${count(t.sinkRows)}</b></span>`,
    `<span>late <b>${count(t.lateRows)}</b></span>`,
    `<span>dead letters <b>${count(t.deadLetters)}</b></span>`,
  ];
  if (m.billing !== null && m.billing.usdPer1000Events !== null) parts.push(`<span><b>${usd(m.billing.usdPer1000Events)}</b> / 1,000 events</span>`);
  $('job-totals').innerHTML = parts.join('');
  $('job-status').title = job.error ?? '';
}

start().catch((error: unknown) => {
  $('job-name').textContent = `cannot load the job: ${(error as Error).message}`;
});
