import type { Label } from '../entity/types'

// The dashboards (SPEC §1 Dashboards, issue 19) are definitions too: each names its filters and its
// figures, and every figure is a small table (columns with labels and units, rows of values). The
// server computes the rows, the web draws each figure by its kind and shows the same rows as a
// summary table, and the .xlsx download writes one sheet per figure: one shape for all three.

export type DashboardKey = 'home' | 'engagement' | 'performance' | 'satisfaction' | 'bikeStats'

/** Filters a dashboard may take besides the date range; each dashboard names the ones that apply. */
export type DashboardFilter = 'countryId' | 'modelId' | 'platform'

/**
 * The entity whose rows a filter picks (its picker asks that entity's options): whoever may read a
 * dashboard with the filter may pick among them.
 */
export const DASHBOARD_FILTER_ENTITY: Readonly<Partial<Record<DashboardFilter, string>>> = { countryId: 'country', modelId: 'bikeModel' }

/** A dashboard request: days are UTC calendar days, both ends included. */
export interface DashboardQuery {
  /** YYYY-MM-DD */
  from: string
  /** YYYY-MM-DD */
  to: string
  countryId?: number
  modelId?: number
  platform?: 'ios' | 'android'
}

/** The longest range a request may ask for, in days (the date picker stops there too). */
export const DASHBOARD_MAX_DAYS = 400

/**
 * The range every dashboard shows when the URL names none: the last N days up to today. One default
 * for all, said beside the date picker, so moving between dashboards never changes the range unseen.
 */
export const DASHBOARD_DEFAULT_DAYS = 90

/**
 * How a figure is drawn. By convention the first column is the category (a day, a week, a month, a
 * name) and the others are the measures:
 * - kpis: one row; each column is a card (with `link` and `permission`);
 * - line / bar: x = first column, one series per other column;
 * - stackedBar: long rows: x = first column, series = second (text), value = third;
 * - pie: name = first column, value = second;
 * - heatmap: y = first column, x = the columns from `heatmapFrom` on, cell = the value (retention cohorts);
 * - table: only the table.
 */
export type FigureKind = 'kpis' | 'line' | 'bar' | 'stackedBar' | 'pie' | 'heatmap' | 'table'

/** How a value is shown: counts and measures with their unit; percent values are 0–100. */
export type ColumnUnit = 'text' | 'day' | 'week' | 'month' | 'count' | 'percent' | 'ms' | 'km' | 'hours' | 'stars' | 'ratio'

export interface FigureColumn {
  key: string
  label: Label
  unit: ColumnUnit
  /**
   * kpis: the list the card opens, with its filter applied (query string values, as the list reads
   * them: `in` values comma-separated, a range 'from,to'; `{from}` and `{to}` stand for the answer's range,
   * `{today}` and `{today-N}` for today's UTC day and N days before it).
   */
  link?: { path: string; query?: Record<string, string> }
  /** kpis: the card is shown (and its value computed) only for users holding this permission. */
  permission?: string
  /** A second axis for this series (line/bar): a percent beside counts. */
  secondAxis?: boolean
}

export interface FigureDef {
  key: string
  title: Label
  /** Shown under the title: what the figure counts, in a sentence. */
  help?: Label
  kind: FigureKind
  columns: readonly FigureColumn[]
  /** heatmap: the index of the first column drawn as a cell. */
  heatmapFrom?: number
  /** Full width (2) or half (1, the default). */
  span?: 1 | 2
}

export interface DashboardDef {
  key: DashboardKey
  title: Label
  /** `${permission}:list` reads it, `${permission}:export` downloads it; home has none (per card). */
  permission: string | null
  filters: readonly DashboardFilter[]
  figures: readonly FigureDef[]
}

export type FigureValue = string | number | null

/** A marker on a figure's time axis: an app version's release. */
export interface FigureMark {
  /** The x value (a day) it stands at. */
  at: string
  label: string
}

export interface FigureData {
  key: string
  rows: FigureValue[][]
  marks?: FigureMark[]
}

/** GET /analytics/{key}: the figures of one dashboard for one query, in the definition's order. */
export interface DashboardAnswer {
  key: DashboardKey
  query: DashboardQuery
  figures: FigureData[]
  /** ISO time the rollups this answer read were last brought up to date (null: read live). */
  refreshedAt: string | null
}
