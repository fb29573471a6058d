import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HealthLevel } from '../../../src/contract/index.js';
import { formatCompactTokens, formatTokens } from '../format.js';
import { HEALTH_STYLES } from '../health.js';
import {
  type ChartMarkerType,
  type ChartModel,
  describeChart,
  hasScores,
  hasWhatIf,
  healthBands,
  layoutMarkerLabels,
} from '../timeline-model.js';

/** Background tint of each health level's band: light enough that the lines stay readable. */
const BAND_FILL: Readonly<Record<HealthLevel, string>> = {
  healthy: 'rgba(26, 127, 55, 0.07)',
  caution: 'rgba(212, 167, 44, 0.20)',
  critical: 'rgba(207, 34, 46, 0.16)',
  unknown: 'rgba(110, 119, 129, 0.16)',
};

const MARKER_STYLE: Readonly<Record<ChartMarkerType, { color: string; dash: number[]; width: number }>> = {
  compaction: { color: '#0969da', dash: [], width: 2 },
  eviction: { color: '#1a7f37', dash: [5, 3], width: 1.5 },
  forced_new_round: { color: '#a40e26', dash: [], width: 3 },
  reminder_added: { color: '#9a6700', dash: [3, 3], width: 1 },
  reminder_dropped: { color: '#6e7781', dash: [3, 3], width: 1 },
};

const COLORS = {
  prompt: '#0969da',
  whatIf: '#1a7f37',
  optimal: HEALTH_STYLES.caution.color,
  critical: HEALTH_STYLES.critical.color,
  window: '#6e7781',
  viability: '#8250df',
  burn: '#bc4c00',
};

/** Which series the chart has; a different shape needs a new uPlot instance, the same shape only new data. */
function shapeOf(model: ChartModel): string {
  return [
    model.optimal !== null,
    model.critical !== null,
    showWindow(model),
    hasScores(model),
    hasWhatIf(model),
  ].join();
}

const showWindow = (model: ChartModel) => model.critical === null && model.contextWindow !== null;

function dataOf(model: ChartModel): uPlot.AlignedData {
  const xs = model.points.map((point) => point.x);
  const constant = (value: number) => xs.map(() => value);
  const columns: Array<Array<number | null>> = [model.points.map((point) => point.promptTokens)];
  if (hasWhatIf(model)) columns.push(model.points.map((point) => point.whatIfPromptTokens ?? null));
  if (model.optimal !== null) columns.push(constant(model.optimal));
  if (model.critical !== null) columns.push(constant(model.critical));
  if (showWindow(model)) columns.push(constant(model.contextWindow as number));
  if (hasScores(model)) {
    columns.push(model.points.map((point) => point.viability));
    columns.push(model.points.map((point) => point.burnRate));
  }
  return [xs, ...columns] as uPlot.AlignedData;
}

function seriesOf(model: ChartModel): uPlot.Series[] {
  const tokenValue = (_u: uPlot, value: number | null) => (value === null ? '—' : formatTokens(value));
  const line = (label: string, stroke: string): uPlot.Series => ({
    label,
    scale: 'tokens',
    stroke,
    width: 1.5,
    dash: [6, 4],
    points: { show: false },
    value: tokenValue,
  });
  const series: uPlot.Series[] = [
    { label: 'Generation', value: (_u, value) => (value === null ? '—' : `#${value}`) },
    {
      label: 'Prompt tokens',
      scale: 'tokens',
      stroke: COLORS.prompt,
      fill: 'rgba(9, 105, 218, 0.05)',
      width: 2,
      points: { show: true, size: 5 },
      spanGaps: false,
      value: tokenValue,
    },
  ];
  if (hasWhatIf(model)) {
    series.push({
      label: "What-if prompt (barometer's policy)",
      scale: 'tokens',
      stroke: COLORS.whatIf,
      fill: 'rgba(26, 127, 55, 0.06)',
      width: 2,
      points: { show: false },
      spanGaps: false,
      value: tokenValue,
    });
  }
  if (model.optimal !== null) series.push(line('Optimal', COLORS.optimal));
  if (model.critical !== null) series.push(line('Critical', COLORS.critical));
  if (showWindow(model)) series.push(line('Context window', COLORS.window));
  if (hasScores(model)) {
    const score = (_u: uPlot, value: number | null) => (value === null ? '—' : String(value));
    series.push({ label: 'Viability', scale: 'score', stroke: COLORS.viability, width: 1.5, value: score });
    series.push({
      label: 'Burn (tokens/min)',
      scale: 'burn',
      stroke: COLORS.burn,
      width: 1.5,
      dash: [2, 3],
      value: tokenValue,
    });
  }
  return series;
}

/** Health bands under the lines: drawn on the cleared canvas, before grid and series. */
function drawBands(u: uPlot, model: ChartModel): void {
  const { ctx, bbox } = u;
  ctx.save();
  for (const band of healthBands(model.points)) {
    const left = Math.max(bbox.left, u.valToPos(band.from, 'x', true));
    const right = Math.min(bbox.left + bbox.width, u.valToPos(band.to, 'x', true));
    if (right <= left) continue;
    ctx.fillStyle = BAND_FILL[band.level];
    ctx.fillRect(left, bbox.top, right - left, bbox.height);
  }
  ctx.restore();
}

/** Compaction and new-round markers, reminders and the critical countdown, over the lines. */
function drawOverlays(u: uPlot, model: ChartModel): void {
  const { ctx, bbox } = u;
  const ratio = uPlot.pxRatio;
  ctx.save();
  ctx.font = `${11 * ratio}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  const labelled: Array<{ x: number; width: number; text: string; color: string }> = [];
  for (const marker of model.markers) {
    const x = Math.round(u.valToPos(marker.x, 'x', true));
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    const style = MARKER_STYLE[marker.type];
    ctx.strokeStyle = style.color;
    ctx.lineWidth = style.width * ratio;
    ctx.setLineDash(style.dash.map((length) => length * ratio));
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    if (marker.type === 'compaction' || marker.type === 'forced_new_round' || marker.type === 'eviction') {
      const text =
        marker.type === 'compaction'
          ? '⇣ compaction'
          : marker.type === 'eviction'
            ? '⇣ evict'
            : '↻ new round';
      labelled.push({ x: x + 4 * ratio, width: ctx.measureText(text).width, text, color: style.color });
    }
  }
  // Labels close together are stacked in rows rather than drawn over each other.
  const rows = layoutMarkerLabels(labelled, 3, 6 * ratio);
  labelled.forEach((label, index) => {
    const row = rows[index];
    if (row === null || row === undefined) return;
    ctx.fillStyle = label.color;
    ctx.fillText(label.text, label.x, bbox.top + (4 + row * 14) * ratio);
  });
  ctx.setLineDash([]);
  // Reminders as a strip along the bottom edge; the countdown as numbered discs above it when there is room
  // for them, else as red ticks, so that long timelines stay legible.
  const step =
    model.points.length > 1 ? Math.abs(u.valToPos(1, 'x', true) - u.valToPos(0, 'x', true)) : Infinity;
  const discs = step >= 16 * ratio;
  const bottom = bbox.top + bbox.height;
  const strip = 5 * ratio;
  for (const point of model.points) {
    const x = u.valToPos(point.x, 'x', true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    if (point.reminder) {
      const left = Math.max(bbox.left, u.valToPos(point.x - 0.5, 'x', true));
      const right = Math.min(bbox.left + bbox.width, u.valToPos(point.x + 0.5, 'x', true));
      ctx.fillStyle = '#9a6700';
      ctx.fillRect(left, bottom - strip, right - left, strip);
    }
    if (point.countdown === null) continue;
    ctx.fillStyle = HEALTH_STYLES.critical.color;
    if (discs) {
      const centre = bottom - strip - 10 * ratio;
      ctx.beginPath();
      ctx.arc(x, centre, 7 * ratio, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = '#ffffff';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(String(point.countdown), x, centre + 0.5 * ratio);
      ctx.textAlign = 'start';
      ctx.textBaseline = 'top';
    } else {
      ctx.fillRect(x - ratio, bottom - strip - 10 * ratio, 2 * ratio, 8 * ratio);
    }
  }
  ctx.restore();
}

function optionsOf(model: ChartModel, width: number, current: { model: ChartModel }): uPlot.Options {
  const scores = hasScores(model);
  const axisStroke = 'currentColor';
  const grid = { stroke: 'rgba(128, 128, 128, 0.18)', width: 1 };
  return {
    width,
    height: 300,
    scales: {
      x: {
        time: false,
        range: (_u, min, max) => [min - 0.5, max + 0.5],
      },
      tokens: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.08)] },
      score: { range: [0, 100] },
      burn: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] },
    },
    axes: [
      { stroke: axisStroke, grid, label: 'Generation', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] },
      {
        scale: 'tokens',
        stroke: axisStroke,
        grid,
        size: 56,
        label: 'Prompt tokens',
        values: (_u, values) => values.map((value) => formatCompactTokens(value)),
      },
      ...(scores
        ? [
            {
              scale: 'score',
              side: 1,
              stroke: COLORS.viability,
              grid: { show: false },
              label: 'Viability',
              size: 44,
            },
            {
              scale: 'burn',
              side: 1,
              stroke: COLORS.burn,
              grid: { show: false },
              label: 'Burn, tokens/min',
              size: 56,
              values: (_u: uPlot, values: number[]) => values.map((value) => formatCompactTokens(value)),
            },
          ]
        : []),
    ],
    series: seriesOf(model),
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    hooks: {
      drawClear: [(u) => drawBands(u, current.model)],
      draw: [(u) => drawOverlays(u, current.model)],
    },
  };
}

/**
 * The timeline of a session or a replay: prompt tokens against the optimal and critical lines, viability
 * and burn rate on a second axis, health bands, reminders, the countdown and markers. The canvas is
 * decorative for assistive technology: the caption summarises it and the tables beside it hold the data.
 */
export function TimelineChart({ model, title }: { model: ChartModel; title: string }) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<{ chart: uPlot; shape: string } | null>(null);
  const current = useRef({ model });
  current.current.model = model;

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const shape = shapeOf(model);
    if (plot.current && plot.current.shape === shape) {
      plot.current.chart.setData(dataOf(model));
      return;
    }
    plot.current?.chart.destroy();
    const chart = new uPlot(
      optionsOf(model, element.clientWidth || 600, current.current),
      dataOf(model),
      element,
    );
    plot.current = { chart, shape };
  }, [model]);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      const width = element.clientWidth;
      if (plot.current && width > 0 && width !== plot.current.chart.width) {
        plot.current.chart.setSize({ width, height: 300 });
      }
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.current?.chart.destroy();
      plot.current = null;
    };
  }, []);

  return html`<figure class="chart" aria-label=${title}>
    <div class="chart-canvas" ref=${container} aria-hidden="true"></div>
    <figcaption>
      <span class="visually-hidden">${title}: ${describeChart(model)}</span>
      <ul class="chart-key" aria-label="Chart key">
        ${(['healthy', 'caution', 'critical', 'unknown'] as const).map(
          (level) =>
            html`<li><span class="key-swatch" style=${`background:${BAND_FILL[level]};border-color:${HEALTH_STYLES[level].color}`}></span>${HEALTH_STYLES[level].label} band</li>`,
        )}
        <li><span class="key-line" style="border-color:#0969da"></span>Compaction</li>
        ${
          hasWhatIf(model)
            ? html`<li><span class="key-line key-thick" style="border-color:#1a7f37"></span>What-if prompt (barometer)</li>
                <li><span class="key-line key-dashed" style="border-color:#1a7f37"></span>What-if eviction</li>`
            : null
        }
        <li><span class="key-line key-thick" style="border-color:#a40e26"></span>Forced new round</li>
        <li><span class="key-strip"></span>Reminder active</li>
        <li><span class="key-countdown">5</span>Countdown to new round</li>
      </ul>
    </figcaption>
  </figure>`;
}
