/**
 * The job graph diagram: laid out by dagre (a layered, left-to-right layout with one cluster
 * per stage) and drawn as SVG. Nodes and edges carry `data-node-id` / `data-edge-id`, stage
 * boxes `data-stage-id`, so tests and other tools can find them.
 */
import dagre from '@dagrejs/dagre';
import type { JobInfo, Metrics, ViewEdge, ViewNode } from './api.ts';
import { wm } from './api.ts';
import { bytes, count, eventTime, rate } from './format.ts';

const SVG = 'http://www.w3.org/2000/svg';
const NODE_W = { source: 170, operator: 230, sink: 170 } as const;
const NODE_H = { source: 56, operator: 76, sink: 56 } as const;

/** Callbacks of the diagram. */
export interface GraphEvents {
  selectNode(node: ViewNode): void;
  selectEdge(edge: ViewEdge): void;
}

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, parent?: Element): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

/** The drawn diagram; `update` refreshes the numbers in place. */
export class GraphView {
  private readonly stats = new Map<string, SVGTextElement[]>();
  private readonly stageLabels = new Map<string, SVGTextElement>();

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly job: JobInfo,
    private readonly events: GraphEvents,
  ) {
    this.draw();
  }

  /** Lays the graph out left to right or top to bottom, whichever fits the pane larger. */
  private layout(): ReturnType<typeof this.layoutIn> {
    const pane = this.svg.parentElement;
    const width = Math.max(300, pane?.clientWidth ?? 900);
    const height = Math.max(200, (pane?.clientHeight ?? 600) - 24);
    let best: (ReturnType<typeof this.layoutIn> & { scale: number }) | undefined;
    for (const rankdir of ['LR', 'TB'] as const) {
      const laid = this.layoutIn(rankdir);
      const size = laid.graph();
      const scale = Math.min(1, width / (size.width ?? 1), height / (size.height ?? 1));
      if (best === undefined || scale > best.scale + 0.05) best = Object.assign(laid, { scale });
    }
    const chosen = best as ReturnType<typeof this.layoutIn> & { scale: number };
    const size = chosen.graph();
    // Never shrink text below legibility: scroll instead.
    const scale = Math.max(0.62, chosen.scale);
    this.svg.setAttribute('viewBox', `0 0 ${Math.ceil(size.width ?? 800)} ${Math.ceil(size.height ?? 400)}`);
    this.svg.setAttribute('width', String(Math.ceil((size.width ?? 800) * scale)));
    this.svg.setAttribute('height', String(Math.ceil((size.height ?? 400) * scale)));
    return chosen;
  }

  private layoutIn(rankdir: 'LR' | 'TB') {
    const { nodes, edges, stages } = this.job.view;
    const g = new dagre.graphlib.Graph({ compound: true, multigraph: false });
    g.setGraph({ rankdir, nodesep: 28, ranksep: rankdir === 'LR' ? 64 : 44, marginx: 24, marginy: 24 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const stage of stages) g.setNode(`stage:${stage.id}`, { label: stage.id, paddingTop: 30, paddingLeft: 14, paddingRight: 14, paddingBottom: 14 });
    for (const node of nodes) {
      g.setNode(node.id, { width: NODE_W[node.kind], height: NODE_H[node.kind] });
      if (node.stage !== undefined) g.setParent(node.id, `stage:${node.stage}`);
    }
    for (const edge of edges) g.setEdge(edge.from, edge.to, { width: edge.label ? edge.label.length * 7 + 8 : 0, height: edge.label ? 16 : 0, labelpos: 'c' });
    dagre.layout(g);
    return g;
  }

  private draw(): void {
    const { nodes, edges, stages } = this.job.view;
    const g = this.layout();
    this.svg.replaceChildren();
    const defs = el('defs', {}, this.svg);
    const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#7d8794' }, marker);

    const boxes = el('g', { class: 'stages' }, this.svg);
    for (const stage of stages) {
      const box = g.node(`stage:${stage.id}`);
      if (box?.x === undefined || box.y === undefined) continue;
      const group = el('g', { class: 'stage', 'data-stage-id': stage.id }, boxes);
      el('rect', { class: 'stage-box', x: box.x - box.width / 2, y: box.y - box.height / 2, width: box.width, height: box.height }, group);
      const label = el('text', { class: 'stage-label', x: box.x - box.width / 2 + 10, y: box.y - box.height / 2 + 18 }, group);
      label.textContent = `${stage.id} · ${stage.parallelism} shard${stage.parallelism === 1 ? '' : 's'}`;
      this.stageLabels.set(stage.id, label);
    }
    const edgeLayer = el('g', { class: 'edges' }, this.svg);
    for (const edge of edges) {
      const laid = g.edge(edge.from, edge.to);
      const points = laid?.points ?? [];
      if (points.length === 0) continue;
      const group = el('g', { class: `edge ${edge.kind}`, 'data-edge-id': edge.id }, edgeLayer);
      const d = pathOf(points);
      el('path', { class: 'line', d, 'marker-end': 'url(#arrow)' }, group);
      const hit = el('path', { class: 'hit', d }, group);
      el('title', {}, hit).textContent = `${edge.id}${edge.label ? ` (${edge.label})` : ''}: click to tap its rows`;
      if (edge.label && laid?.x !== undefined && laid.y !== undefined) {
        const text = el('text', { x: laid.x, y: laid.y + 4, 'text-anchor': 'middle' }, group);
        text.textContent = edge.label;
      }
      group.addEventListener('click', () => {
        this.select(`[data-edge-id="${cssEscape(edge.id)}"]`);
        this.events.selectEdge(edge);
      });
    }
    const nodeLayer = el('g', { class: 'nodes' }, this.svg);
    for (const node of nodes) {
      const laid = g.node(node.id);
      if (laid?.x === undefined || laid.y === undefined) continue;
      const w = NODE_W[node.kind];
      const h = NODE_H[node.kind];
      const x = laid.x - w / 2;
      const y = laid.y - h / 2;
      const group = el('g', { class: `node ${node.kind}`, 'data-node-id': node.id, transform: `translate(${x},${y})` }, nodeLayer);
      el('rect', { width: w, height: h }, group);
      el('title', {}, group).textContent = node.detail;
      const title = el('text', { class: 'title', x: 10, y: 18 }, group);
      title.textContent = node.kind === 'operator' ? node.name : `${node.kind === 'source' ? 'Source' : 'Sink'}: ${node.name}`;
      const sub = el('text', { class: 'sub', x: 10, y: 33 }, group);
      sub.textContent = node.kind === 'operator' ? `${node.operatorId ?? ''}` : truncate(node.detail, 26);
      const lines: SVGTextElement[] = [];
      const statLines = node.kind === 'operator' ? 2 : 1;
      for (let i = 0; i < statLines; i++) lines.push(el('text', { class: 'stat', x: 10, y: 49 + i * 15 }, group));
      this.stats.set(node.id, lines);
      group.addEventListener('click', () => {
        this.select(`[data-node-id="${cssEscape(node.id)}"]`);
        this.events.selectNode(node);
      });
    }
  }

  private select(selector: string): void {
    for (const e of this.svg.querySelectorAll('.selected')) e.classList.remove('selected');
    this.svg.querySelector(selector)?.classList.add('selected');
  }

  /** Refreshes counters, rates, state and stage watermarks. */
  update(m: Metrics): void {
    for (const node of this.job.view.nodes) {
      const lines = this.stats.get(node.id);
      if (lines === undefined) continue;
      if (node.kind === 'operator' && node.operatorId !== undefined) {
        const op = m.operators[node.operatorId];
        if (op === undefined) continue;
        const t = op.total;
        setText(lines[0], `in ${count(t.recordsIn)} · out ${count(t.recordsOut)} · ${rate(t.rateIn)}`);
        const extra: string[] = [];
        if (t.stateEntries > 0) extra.push(`state ${count(t.stateEntries)}${t.stateBytes !== null ? ` · ${bytes(t.stateBytes)}` : ''}`);
        if (t.lateRows > 0) extra.push(`late ${count(t.lateRows)}`);
        if (t.lookupHitRate !== null) extra.push(`hit ${(t.lookupHitRate * 100).toFixed(0)}%`);
        setText(lines[1], extra.join(' · ') || 'stateless');
        lines[1]?.classList.toggle('warn', t.lateRows > 0);
      } else if (node.kind === 'source') {
        const s = m.sources[node.name];
        if (s) setText(lines[0], `${count(s.records)} read · ${rate(s.rate)}${s.deadLetters > 0 ? ` · ${s.deadLetters} dead` : ''}`);
        lines[0]?.classList.toggle('warn', (s?.deadLetters ?? 0) > 0);
      } else {
        const s = m.sinks[node.name];
        if (s) setText(lines[0], `${count(s.rows)} rows · ${rate(s.rate)}`);
      }
    }
    for (const [id, label] of this.stageLabels) {
      const st = m.stages[id];
      if (st === undefined) continue;
      // The time of day keeps the label inside its box; the full watermark is in the tooltip.
      const full = eventTime(wm(st.watermark));
      label.textContent = `${id} · ${st.parallelism} shard${st.parallelism === 1 ? '' : 's'} · wm ${full.length > 12 ? full.slice(11) : full}`;
      const tip: SVGTitleElement = label.querySelector<SVGTitleElement>('title') ?? el('title', {}, label);
      tip.textContent = `watermark ${full}: ${st.why}`;
      label.setAttribute('data-watermark', String(st.watermark));
      label.classList.toggle('warn', st.silentNotIdle);
    }
  }
}

function setText(e: SVGTextElement | undefined, text: string): void {
  if (e !== undefined && e.textContent !== text) e.textContent = text;
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** A smooth path through dagre's edge points. */
function pathOf(points: readonly { x: number; y: number }[]): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  if (rest.length === 1) return `M${first.x},${first.y} L${rest[0]?.x},${rest[0]?.y}`;
  let d = `M${first.x},${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const c = rest[i] as { x: number; y: number };
    const n = rest[i + 1] as { x: number; y: number };
    const end = i === rest.length - 2 ? n : { x: (c.x + n.x) / 2, y: (c.y + n.y) / 2 };
    d += ` Q${c.x},${c.y} ${end.x},${end.y}`;
  }
  return d;
}

function cssEscape(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
