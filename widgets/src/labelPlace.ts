// Where an edge's label goes: on its path, at the point nearest the middle whose label box
// covers no node. A label at the middle of a loop's way back, or of an edge that passes a
// node, was drawn under that node.

import type { XY } from "./protocol";

export type Box = { x: number; y: number; width: number; height: number };

/** How far (px) a label keeps from a node's border. */
const MARGIN = 4;
/** Points tried along the path, the middle first, then outwards. */
const TRIES = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82];

/** A label's box, estimated from its text (the label is one line of 11 px text). */
export function labelSize(text: string): { width: number; height: number } {
  return { width: text.length * 6.6 + 14, height: 20 };
}

/**
 * Points of an SVG path made of absolute M, C and S commands (the edges' paths), at the
 * fractions `at` of its parameter (each cubic segment an equal share).
 */
export function pointsOnPath(d: string, at: readonly number[]): XY[] {
  const tokens = d.match(/[MCS]|-?\d*\.?\d+(?:e[-+]?\d+)?/gi) ?? [];
  const segments: [XY, XY, XY, XY][] = [];
  let pen: XY = { x: 0, y: 0 };
  let lastControl: XY | null = null;
  let command = "";
  const numbers: number[] = [];
  const take = (): XY => ({ x: numbers.shift() ?? 0, y: numbers.shift() ?? 0 });
  const flush = () => {
    while (numbers.length >= 2) {
      if (command === "M") {
        pen = take();
        lastControl = null;
      } else if (command === "C" && numbers.length >= 6) {
        const [c1, c2, end] = [take(), take(), take()];
        segments.push([pen, c1, c2, end]);
        [pen, lastControl] = [end, c2];
      } else if (command === "S" && numbers.length >= 4) {
        const c1: XY = lastControl ? { x: 2 * pen.x - lastControl.x, y: 2 * pen.y - lastControl.y } : pen;
        const [c2, end] = [take(), take()];
        segments.push([pen, c1, c2, end]);
        [pen, lastControl] = [end, c2];
      } else break;
    }
    numbers.length = 0;
  };
  for (const token of tokens) {
    if (/^[MCS]$/i.test(token)) {
      flush();
      command = token.toUpperCase();
    } else numbers.push(Number(token));
  }
  flush();
  if (!segments.length) return at.map(() => pen);
  return at.map((fraction) => {
    const scaled = Math.min(Math.max(fraction, 0), 1) * segments.length;
    const index = Math.min(Math.floor(scaled), segments.length - 1);
    return cubic(segments[index], scaled - index);
  });
}

function cubic([p0, p1, p2, p3]: [XY, XY, XY, XY], t: number): XY {
  const u = 1 - t;
  const a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
  return { x: a * p0.x + b * p1.x + c * p2.x + d * p3.x, y: a * p0.y + b * p1.y + c * p2.y + d * p3.y };
}

function covers(at: XY, size: { width: number; height: number }, box: Box): boolean {
  return (
    at.x + size.width / 2 > box.x - MARGIN &&
    at.x - size.width / 2 < box.x + box.width + MARGIN &&
    at.y + size.height / 2 > box.y - MARGIN &&
    at.y - size.height / 2 < box.y + box.height + MARGIN
  );
}

/**
 * The label's centre: the first point along the path (the middle first) where the label
 * covers none of `boxes`; the middle when every point covers one.
 */
export function placeLabel(path: string, middle: XY, text: string, boxes: readonly Box[]): XY {
  if (!boxes.length) return middle;
  const size = labelSize(text);
  if (!boxes.some((box) => covers(middle, size, box))) return middle;
  for (const point of pointsOnPath(path, TRIES)) {
    if (!boxes.some((box) => covers(point, size, box))) return point;
  }
  return middle;
}
