// The bars of a softmax of a few scores (step 4's saturation demo, the FAQ's answer on scaling): one
// bar per score, its probability on a 0-to-1 axis written with two decimals.
import { BarChart } from '../../ui/bars';
import { fmt } from '../../ui/format';

export function probabilityBars(caption: string, className?: string): BarChart {
  return new BarChart({ caption, labelHeader: 'score', valueHeader: 'probability', max: 1, format: (v) => fmt(v, 2), className });
}
