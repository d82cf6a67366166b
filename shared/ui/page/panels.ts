/**
 * The side panels: the selected operator (explain line, per-shard counters and state, billing),
 * watermarks per stage, shard and input channel with the "why" line, an edge's tapped rows,
 * and the dead letters.
 */
import type { Billing, DeadLetters, JobInfo, Metrics, Tap, ViewNode } from './api.ts';
import { wm } from './api.ts';
import { bytes, clock, count, duration, esc, eventTime, rate, usd } from './format.ts';

/** The selected operator, source or sink. */
export function renderDetails(panel: HTMLElement, node: ViewNode | undefined, job: JobInfo, m: Metrics | undefined): void {
  if (node === undefined) {
    panel.innerHTML = `<p class="empty">Click an operator, source or sink in the graph.</p>${operatorsOverview(job, m)}${jobSummary(job, m)}`;
    return;
  }
  const head = `<h3 data-detail-node="${esc(node.id)}">${esc(node.kind === 'operator' ? `${node.name} · ${node.operatorId ?? ''}` : `${node.kind} ${node.name}`)}</h3>
    <div class="explain">${esc(node.detail)}</div>`;
  if (m === undefined) {
    panel.innerHTML = head;
    return;
  }
  if (node.kind !== 'operator' || node.operatorId === undefined) {
    const s = node.kind === 'source' ? m.sources[node.name] : undefined;
    const k = node.kind === 'sink' ? m.sinks[node.name] : undefined;
    const rows = s
      ? `<tr><th>records read</th><td class="num">${count(s.records)}</td></tr><tr><th>rate</th><td class="num">${rate(s.rate)}</td></tr><tr><th>dead letters</th><td class="num">${count(s.deadLetters)}</td></tr>`
      : k
        ? `<tr><th>changelog rows</th><td class="num">${count(k.rows)}</td></tr><tr><th>rate</th><td class="num">${rate(k.rate)}</td></tr>`
        : '';
    panel.innerHTML = `${head}<table>${rows}</table>`;
    return;
  }
  const op = m.operators[node.operatorId];
  if (op === undefined) {
    panel.innerHTML = head;
    return;
  }
  const hasLookup = op.total.lookupHitRate !== null;
  const shardRows = op.shards
    .map(
      (s) => `<tr><td class="mono">${esc(s.label)}</td><td class="num">${count(s.recordsIn)}</td><td class="num">${count(s.recordsOut)}</td>
        <td class="num">${rate(s.rateIn)}</td><td class="num">${count(s.stateEntries)}</td><td class="num">${bytes(s.stateBytes)}</td>
        <td class="num">${count(s.lateRows)}</td>${hasLookup ? `<td class="num">${s.lookupHitRate === null ? '—' : `${(s.lookupHitRate * 100).toFixed(1)}%`}</td>` : ''}</tr>`,
    )
    .join('');
  const t = op.total;
  const stage = m.stages[op.stage];
  panel.innerHTML = `${head}
    <h3>Per shard (${esc(op.stage)})</h3>
    <table><thead><tr><th>shard</th><th class="num">in</th><th class="num">out</th><th class="num">rate</th><th class="num">state</th><th class="num">bytes</th><th class="num">late</th>${hasLookup ? '<th class="num">hit rate</th>' : ''}</tr></thead>
    <tbody>${shardRows}<tr><th>total</th><td class="num">${count(t.recordsIn)}</td><td class="num">${count(t.recordsOut)}</td><td class="num">${rate(t.rateIn)}</td>
    <td class="num">${count(t.stateEntries)}</td><td class="num">${bytes(t.stateBytes)}</td><td class="num">${count(t.lateRows)}</td>${hasLookup ? `<td class="num">${t.lookupHitRate === null ? '—' : `${(t.lookupHitRate * 100).toFixed(1)}%`}</td>` : ''}</tr></tbody></table>
    ${t.stateScope === 'cached' ? '<p class="empty">State: what the shard caches of its DynamoDB state.</p>' : ''}
    <h3>Cost</h3>${billingText(stage?.billing ?? null, m.billing !== null)}
    ${stage ? `<h3>Watermark of ${esc(op.stage)}</h3><div class="why${stage.silentNotIdle ? ' stuck' : ''}">${esc(stage.why)}</div>` : ''}`;
}

function billingText(billing: Billing | null, runtimeHasBilling: boolean): string {
  if (billing === null) {
    return `<p class="empty">${runtimeHasBilling ? 'No billed units yet.' : 'This runtime reports no billed units (the embedded runtime runs no AWS services); flambda local with billing accounting shows units and $ per 1,000 events here.'}</p>`;
  }
  const units = Object.entries(billing.units)
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td class="num">${count(v)}</td></tr>`)
    .join('');
  return `<table>${units}<tr><th>cost</th><td class="num">${usd(billing.usd)}</td></tr><tr><th>$ per 1,000 events</th><td class="num">${billing.usdPer1000Events === null ? '—' : usd(billing.usdPer1000Events)}</td></tr></table>`;
}

/** Every operator at a glance: rows in and out, rate, state, late rows. */
function operatorsOverview(job: JobInfo, m: Metrics | undefined): string {
  if (m === undefined) return '';
  const rows = job.view.nodes
    .filter((n) => n.kind === 'operator' && n.operatorId !== undefined)
    .map((n) => {
      const t = m.operators[n.operatorId as string]?.total;
      if (t === undefined) return '';
      return `<tr data-overview-op="${esc(n.operatorId)}"><td>${esc(n.name)}<br><span class="empty">${esc(n.stage ?? '')}</span></td><td class="num">${count(t.recordsIn)}</td><td class="num">${count(t.recordsOut)}</td>
        <td class="num">${rate(t.rateIn)}</td><td class="num">${count(t.stateEntries)}</td><td class="num">${count(t.lateRows)}</td></tr>`;
    })
    .join('');
  return `<h3>Operators</h3><table><thead><tr><th>operator</th><th class="num">in</th><th class="num">out</th><th class="num">rate</th><th class="num">state</th><th class="num">late</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function jobSummary(job: JobInfo, m: Metrics | undefined): string {
  const lines = [`<tr><th>runtime</th><td>${esc(job.runtime)}</td></tr>`, `<tr><th>started</th><td>${clock(job.startedAt)}</td></tr>`];
  if (m) lines.push(`<tr><th>elapsed</th><td>${duration(m.elapsedMs)}</td></tr>`);
  if (job.error) lines.push(`<tr><th>error</th><td>${esc(job.error)}</td></tr>`);
  for (const [k, v] of Object.entries(job.summary ?? {})) lines.push(`<tr><th>${esc(k)}</th><td>${esc(typeof v === 'object' ? JSON.stringify(v) : v)}</td></tr>`);
  return `<h3>Job</h3><table>${lines.join('')}</table>`;
}

/** Watermarks of every stage, shard and input channel, with why each is where it is. */
export function renderWatermarks(panel: HTMLElement, job: JobInfo, m: Metrics | undefined): void {
  if (m === undefined) return;
  const parts: string[] = [];
  for (const stage of job.view.stages) {
    const st = m.stages[stage.id];
    if (st === undefined) continue;
    parts.push(`<section data-watermarks-stage="${esc(stage.id)}"><h3>${esc(stage.id)} · <span class="mono" data-stage-watermark="${esc(String(st.watermark))}">${esc(eventTime(wm(st.watermark)))}</span>${st.lagMs !== null ? ` · lag ${duration(st.lagMs)}` : ''}</h3>
      <div class="why${st.silentNotIdle ? ' stuck' : ''}" data-why-stage="${esc(stage.id)}">${esc(st.why)}</div>`);
    for (const shard of st.shards) {
      const input = shard.input;
      if (input.kind === 'source') {
        parts.push(`<table><tr><th>shard ${esc(shard.label)} (source ${esc(input.source)})</th><td class="num">${esc(eventTime(wm(shard.watermark)))}</td></tr>
          <tr><td colspan="2" class="empty">${esc(shard.why)}</td></tr></table>`);
        continue;
      }
      const rows = input.channels
        .map((c) => {
          const cls = [c.idle ? 'idle' : '', shard.heldBy === c.channel ? 'holder' : ''].join(' ').trim();
          return `<tr class="${cls}" data-channel="${esc(c.channel)}"><td class="mono">${esc(c.channel)}</td><td>${esc(c.from)}</td><td class="num">${esc(eventTime(wm(c.watermark)))}</td>
            <td>${c.idle ? 'idle' : 'active'}</td><td class="num">${c.since === undefined ? '—' : clock(c.since)}</td></tr>`;
        })
        .join('');
      const missing = input.expected - input.channels.length;
      parts.push(`<table data-watermarks-shard="${esc(`${stage.id}/${shard.shard}`)}"><thead><tr><th colspan="5">shard ${esc(shard.label)}: ${esc(eventTime(wm(shard.watermark)))}${input.idleTimeoutMs === null ? ' · no idle timeout' : ` · idle after ${duration(input.idleTimeoutMs)}`}</th></tr>
        <tr><th>channel</th><th>from</th><th class="num">watermark</th><th>state</th><th class="num">since</th></tr></thead><tbody>${rows}
        ${missing > 0 ? `<tr><td colspan="5" class="empty">${missing} channel${missing === 1 ? '' : 's'} not heard from yet</td></tr>` : ''}</tbody></table>
        <div class="why${shard.silentNotIdle ? ' stuck' : ''}" data-why-shard="${esc(`${stage.id}/${shard.shard}`)}">${esc(shard.why)}</div>`);
    }
    parts.push('</section>');
  }
  panel.innerHTML = parts.join('');
}

/** The latest changelog rows on an edge. */
export function renderTap(panel: HTMLElement, tap: Tap | undefined, edgeId: string | undefined): void {
  if (edgeId === undefined) {
    panel.innerHTML = '<p class="empty">Click an edge of the graph to see the latest changelog rows on it.</p>';
    return;
  }
  if (tap === undefined) {
    panel.innerHTML = `<h3>${esc(edgeId)}</h3><p class="empty">loading…</p>`;
    return;
  }
  const head = `<tr><th>op</th><th>shard</th>${tap.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
  const rows = tap.rows
    .slice()
    .reverse()
    .map((r) => `<tr data-tap-row><td class="mono op-${esc(r.op.slice(1))}">${esc(r.op)}</td><td class="num">${r.shard}</td>${tap.columns.map((c) => `<td class="mono">${esc(cell(r.row[c]))}</td>`).join('')}</tr>`)
    .join('');
  panel.innerHTML = `<h3 data-tap-edge="${esc(tap.edge)}">${esc(tap.edge)}</h3><p>${count(tap.total)} rows crossed this edge; the latest ${tap.rows.length}, newest first:</p>
    ${tap.rows.length === 0 ? '<p class="empty">No rows yet.</p>' : `<table><thead>${head}</thead><tbody>${rows}</tbody></table>`}`;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Dead letters, newest first. */
export function renderDeadLetters(panel: HTMLElement, letters: DeadLetters | undefined): void {
  if (letters === undefined || letters.total === 0) {
    panel.innerHTML = '<p class="empty">No dead letters: every record was read.</p>';
    return;
  }
  const rows = letters.letters
    .slice()
    .reverse()
    .map(
      (l) => `<tr data-dead-letter="${l.seq}"><td class="num">${l.seq}</td><td class="mono">${esc(l.position)}</td><td>${esc(l.reason)}</td></tr>
      <tr><td></td><td colspan="2" class="mono empty">${esc(l.raw.length > 300 ? `${l.raw.slice(0, 300)}…` : l.raw)}</td></tr>`,
    )
    .join('');
  panel.innerHTML = `<p>${count(letters.total)} records were dead-lettered${letters.kept < letters.total ? ` (the latest ${letters.kept} shown)` : ''}.</p>
    <table><thead><tr><th class="num">#</th><th>position</th><th>reason</th></tr></thead><tbody>${rows}</tbody></table>`;
}
