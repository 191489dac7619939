// Step 2's edits: each editable table's cells as numbers the reader can change, sent to the settings
// as the `edits` text (and so to the URL); the edit panel's Undo clears them. The edits as last sent
// are kept here, since the settings arrive only with the next frame's snapshot.
import { quoted } from '../../ui/format';
import type { MatrixEdit } from '../../ui/matrix-table/edit';
import { EDIT_LIMITS, EDIT_MATRIX_KEYS, roundEdit, withEdit, type EditMatrix } from '../../features/hands-on/hands-on-settings';
import type { Snapshot } from '../../snapshot';
import type { StepContext } from '../types';

export class EditSession {
  /** The edits as last sent, and as they were when an edit began (null: none in progress). */
  private working = '';
  private before: string | null = null;
  private snapshot: Snapshot | null = null;
  /** The first column of the shown head: a W table shows the head's columns only. */
  private colStart = 0;

  constructor(private readonly context: Pick<StepContext, 'update'>) {}

  /** The snapshot shown now, and the first column its W tables show. */
  show(snapshot: Snapshot, colStart: number): void {
    this.snapshot = snapshot;
    this.colStart = colStart;
    if (this.before === null) this.working = snapshot.settings.edits;
  }

  /** One matrix's cells as editable numbers. */
  editing(matrix: EditMatrix): MatrixEdit {
    return {
      label: (r, c) =>
        matrix === 'X'
          ? `X, row ${r + 1} (${quoted(this.snapshot?.tokens[r] ?? '')}), dimension ${c + 1}`
          : `${EDIT_MATRIX_KEYS[matrix]}, row ${r + 1}, column ${c + 1} of this head`,
      start: () => {
        this.before = this.working;
      },
      change: (r, shownCol, value) => {
        if (!this.snapshot) return;
        // A W table shows the head's columns; X shows every column from the first.
        const c = matrix === 'X' ? shownCol : this.colStart + shownCol;
        const clamped = Math.max(-EDIT_LIMITS.maxValue, Math.min(EDIT_LIMITS.maxValue, value));
        // Back to the seed's own number (at the URL's 3 decimals): no edit at all.
        const seeded = (this.snapshot.baseline ?? this.snapshot.pipeline)[EDIT_MATRIX_KEYS[matrix]];
        const same = roundEdit(clamped) === roundEdit(seeded.data[r * seeded.cols + c]);
        const next = withEdit(this.working, matrix, r, c, same ? null : clamped);
        if (next === this.working) return;
        this.working = next;
        this.context.update({ edits: next });
      },
      end: (_r, _c, keep) => {
        if (!keep && this.before !== null && this.before !== this.working) {
          this.working = this.before;
          this.context.update({ edits: this.before });
        }
        this.before = null;
      },
    };
  }

  /** Undo every edit. */
  reset(): void {
    this.working = '';
    this.context.update({ edits: '' });
  }
}
