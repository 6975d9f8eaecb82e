/**
 * Point labels that do not overlap, for the report's Vega-Lite charts. Vega-Lite has no label
 * placement of its own; Vega's label transform (https://vega.github.io/vega/docs/transforms/label/)
 * tries each anchor position around a point and keeps the first where the label overlaps no label
 * placed before it. A chart asks for it in its spec's `usermeta.labels`; `withPointLabels` adds the
 * label mark to the compiled Vega spec.
 *
 * Keeping labels off the marks themselves (`avoidMarks`, `avoidBaseMark`) draws those marks into a
 * canvas, which Node has only with the native `canvas` package; without one the transform fails.
 * The report renders without it, so labels avoid each other only: the offset keeps each off its
 * own point.
 */
import type { Spec as VegaSpec } from 'vega';

/** What to label: the Vega-Lite layer (its `name`) whose points get labels, and the field of the label text. */
export interface PointLabels {
  layer: string;
  field: string;
}

/** Font size of a point label, px. */
const FONT_SIZE = 11;
/**
 * Anchor positions tried, in order: right of the point first (where a label reads most naturally
 * on a scatter plot), then the other sides, then the corners.
 */
const ANCHORS = ['right', 'left', 'top', 'bottom', 'top-right', 'bottom-right', 'top-left', 'bottom-left'];

/**
 * `spec` (compiled from Vega-Lite) with a text mark labelling each item of `labels.layer`, laid out
 * by Vega's label transform. Vega-Lite names a named layer's marks `<name>_marks`. Throws when the
 * spec has no such mark.
 */
export function withPointLabels(spec: VegaSpec, labels: PointLabels): VegaSpec {
  const marks = spec.marks ?? [];
  const base = `${labels.layer}_marks`;
  if (!marks.some((m) => m.name === base)) throw new Error(`no mark ${base} to label in the chart`);
  const label = {
    type: 'text',
    name: `${labels.layer}_labels`,
    from: { data: base },
    encode: { enter: { text: { field: `datum.${labels.field}` }, fontSize: { value: FONT_SIZE }, fill: { value: '#333' } } },
    transform: [{
      type: 'label',
      size: { signal: '[width, height]' },
      anchor: ANCHORS,
      // Pixels between the point's bounding box and its label.
      offset: [4],
      avoidBaseMark: false,
    }],
  };
  return { ...spec, marks: [...marks, label as unknown as NonNullable<VegaSpec['marks']>[number]] };
}
