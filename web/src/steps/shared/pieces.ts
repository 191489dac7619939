// A step's drawing written once, as a generator whose every `yield` ends a piece (a figure, or a bounded
// chunk of one): render() draws it whole (a change the reader sees, the tests), pieces() hands it to the
// step renderer, which draws an off-screen section one piece per task (step-renderer.ts). A heavy step
// drawn whole was one task of 100–200 ms on a phone's CPU (tests/bench/page-walk.ts).
import type { Snapshot } from '../../snapshot';
import type { StepView } from '../types';

export function drawnInPieces(draw: (snapshot: Snapshot) => Generator<void, void>): StepView {
  return {
    render: (snapshot) => allPieces(draw(snapshot)),
    pieces: draw,
  };
}

/** Runs a drawing in pieces to its end, in this task (the drawing whole). */
export function allPieces(pieces: Iterator<void, void>): void {
  while (!pieces.next().done);
}
