import { Resvg } from '@resvg/resvg-js';

/** One small chart: a series of (minute, value) points. */
export interface Panel {
  title: string;
  unit: string;
  /** Shown after the title, e.g. the series' growth. */
  note?: string;
  points: Array<[minute: number, value: number]>;
}

const PANEL_WIDTH = 360;
const PANEL_HEIGHT = 200;
const COLUMNS = 3;
const MARGIN = { left: 56, right: 16, top: 42, bottom: 34 };
const HEADER_HEIGHT = 44;

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A value written short enough for an axis label. */
const short = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2));

/**
 * A grid of panels, one series each, minutes on x, as an SVG string. Each panel's y axis starts at
 * zero so that growth reads at its true proportion; the minutes before `windowFrom` (the warm-up)
 * are shaded.
 */
export function panelsSvg(title: string, panels: Panel[], windowFrom: number): string {
  const rows = Math.ceil(panels.length / COLUMNS);
  const width = COLUMNS * PANEL_WIDTH;
  const height = HEADER_HEIGHT + rows * PANEL_HEIGHT;
  const parts = panels.map((panel, i) =>
    panelSvg(panel, (i % COLUMNS) * PANEL_WIDTH, HEADER_HEIGHT + Math.floor(i / COLUMNS) * PANEL_HEIGHT, windowFrom),
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="16" y="28" font-size="17" font-weight="bold">${escape(title)}</text>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

function panelSvg(panel: Panel, x0: number, y0: number, windowFrom: number): string {
  const plotWidth = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const minutes = panel.points.map(([minute]) => minute);
  const values = panel.points.map(([, value]) => value).filter(Number.isFinite);
  const xMax = Math.max(1, ...minutes);
  const yMax = Math.max(...values, 0) * 1.1 || 1;
  const x = (minute: number) => x0 + MARGIN.left + (minute / xMax) * plotWidth;
  const y = (value: number) => y0 + MARGIN.top + plotHeight - (value / yMax) * plotHeight;
  const bottom = y(0);
  const line = panel.points
    .filter(([, value]) => Number.isFinite(value))
    .map(([minute, value]) => `${x(minute).toFixed(1)},${y(value).toFixed(1)}`)
    .join(' ');
  const yTicks = [0, 0.5, 1].map((f) => f * (yMax / 1.1));
  const xTicks = [0, Math.round(xMax / 2), xMax];
  return [
    `<text x="${x0 + 12}" y="${y0 + 18}" font-size="13">${escape(panel.title)} (${escape(panel.unit)})</text>`,
    `<text x="${x0 + 12}" y="${y0 + 32}" font-size="11" fill="#555">${escape(panel.note ?? '')}</text>`,
    `<rect x="${x(0)}" y="${y(yMax)}" width="${Math.max(0, x(windowFrom) - x(0))}" height="${plotHeight}" fill="#eeeeee"/>`,
    `<line x1="${x(0)}" y1="${bottom}" x2="${x(xMax)}" y2="${bottom}" stroke="#666"/>`,
    `<line x1="${x(0)}" y1="${bottom}" x2="${x(0)}" y2="${y(yMax)}" stroke="#666"/>`,
    ...yTicks.map(
      (tick) =>
        `<text x="${x(0) - 6}" y="${y(tick) + 4}" font-size="10" text-anchor="end">${short(tick)}</text>` +
        `<line x1="${x(0)}" y1="${y(tick)}" x2="${x(xMax)}" y2="${y(tick)}" stroke="#ddd"/>`,
    ),
    ...xTicks.map((tick) => `<text x="${x(tick)}" y="${bottom + 14}" font-size="10" text-anchor="middle">${tick}</text>`),
    `<text x="${x(xMax / 2)}" y="${bottom + 28}" font-size="10" text-anchor="middle">minutes</text>`,
    `<polyline points="${line}" fill="none" stroke="#1f5fa8" stroke-width="2"/>`,
  ].join('\n');
}

/** Rasterizes an SVG (with the system's fonts) to PNG bytes. */
export function svgToPng(svg: string): Buffer {
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
}
