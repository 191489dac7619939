// @vitest-environment happy-dom
// Every data table's header comes from one helper (columnHeads in web/src/ui/data-table.ts): one
// column header a non-empty entry, each scoped to its column, with the entry's class where it has one
// and its node where it is one, and no cell at all for an entry left out.
import { expect, test } from 'vitest';
import { columnHeads } from '../../web/src/ui/data-table';
import { el } from '../../web/src/ui/dom';

test('one scoped column header per entry, in order', () => {
  const head = columnHeads(['token', 'head 1', 'head 2']);
  expect(head.outerHTML).toBe('<thead><tr><th scope="col">token</th><th scope="col">head 1</th><th scope="col">head 2</th></tr></thead>');
});

test('a class goes on its own header only; entries left out make no cell', () => {
  const wanted = 3;
  const head = columnHeads([
    { content: 'part', className: 'corner' },
    ...[2, 3, 4].map((h) => ({ content: `h = ${h}`, className: h === wanted ? 'current' : null })),
    false,
    null,
  ]);
  const cells = [...head.querySelectorAll('th')];
  expect(cells.map((cell) => cell.textContent)).toEqual(['part', 'h = 2', 'h = 3', 'h = 4']);
  expect(cells.map((cell) => cell.className)).toEqual(['corner', '', 'current', '']);
  expect(cells.every((cell) => cell.getAttribute('scope') === 'col')).toBe(true);
});

test('a node entry is the header’s content, not its text', () => {
  const head = columnHeads([el('span', { class: 'visually-hidden' }, 'bar')]);
  expect(head.querySelector('th > span.visually-hidden')?.textContent).toBe('bar');
});
