// The header of a plain data table: one row of column headers, each scoped to its column so a screen
// reader names the column when it reads a cell. Every data table on the page builds its header here.
import { el, type Child } from './dom';

/** A column header: its content, or its content and a class (a corner cell, the current column). */
export type ColumnHead = Child | { readonly content: Child; readonly className: string | null };

/** `<thead><tr><th scope="col">…</th>…</tr></thead>`, one header per entry; null or false entries are left out. */
export function columnHeads(heads: readonly ColumnHead[]): HTMLTableSectionElement {
  const cells = heads.flatMap((head) => {
    if (head === null || head === undefined || head === false) return [];
    const { content, className } = typeof head === 'object' && !(head instanceof Node) ? head : { content: head, className: null };
    return [el('th', { scope: 'col', class: className }, content)];
  });
  return el('thead', {}, el('tr', {}, ...cells));
}
