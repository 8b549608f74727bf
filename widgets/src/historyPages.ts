// The history panel reads a thread's checkpoints a page at a time, older pages as the slider
// nears them. While an older page is still to come, the slider reaches a page past the
// loaded rows, and always one position past the chosen one: a key press there moves it,
// and the checkpoint shows when its page is in.
// (The slider used to end at the oldest loaded row, so when a page came late every press
// at that end did nothing: the presses lost while scrubbing a long history under load.)

/**
 * How many positions the slider has: the loaded rows, and while older ones remain (`more`)
 * a page more, and room for one more press past the `chosen` row however far it went
 * ahead of the pages. The chosen row is kept within it (see {@link within}).
 */
export function sliderSpan(loaded: number, more: boolean, page: number, chosen: number): number {
  return more ? Math.max(loaded + page, chosen + 2) : loaded;
}

/** The chosen row (0 is the newest) kept within the slider: a short last page ends it. */
export function within(chosen: number, span: number): number {
  return Math.max(0, Math.min(chosen, span - 1));
}

/**
 * The cursor of the older page to ask for now, or null.
 *
 * `before` is the cursor the panel holds (null when the oldest page is in), `asked` the
 * cursor asked for last (its reply may not be in yet), `chosen` the chosen row (0 is the
 * newest), `loaded` how many rows are in and `ahead` how close to the oldest loaded row
 * the slider may come first.
 */
export function pageToAsk(p: {
  before: string | null;
  asked: string | null;
  chosen: number;
  loaded: number;
  ahead: number;
}): string | null {
  if (p.before === null || p.before === p.asked) return null;
  return p.chosen >= p.loaded - p.ahead ? p.before : null;
}
