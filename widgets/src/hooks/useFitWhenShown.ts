// Fit the graph into view when the canvas is first shown with a size.
//
// React Flow fits the view once, when the nodes are first measured. A view rendered while
// hidden (its notebook in a background tab during a reload, an output not laid out yet)
// is fitted into a canvas of size zero: zoom at its minimum, the graph a speck in a
// corner. So each time the canvas goes from no size to a size, the view is fitted again,
// unless the user has moved it since (their viewport is theirs to keep).

import { useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { FIT } from "../flow";

function hasSize(element: HTMLElement): boolean {
  return element.clientWidth > 0 && element.clientHeight > 0;
}

/** Returns React Flow's `onMoveStart`: a move started by the user (an event) is theirs. */
export function useFitWhenShown(wrapper: RefObject<HTMLDivElement | null>) {
  const flow = useReactFlow();
  const moved = useRef(false);
  useEffect(() => {
    const element = wrapper.current;
    if (!element) return;
    let shown = hasSize(element);
    let frame = 0;
    const observer = new ResizeObserver(() => {
      const now = hasSize(element);
      if (now && !shown && !moved.current) {
        cancelAnimationFrame(frame);
        // A frame later: React Flow has seen the new size and measured the nodes.
        frame = requestAnimationFrame(() => void flow.fitView(FIT));
      }
      shown = now;
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [wrapper, flow]);
  return useCallback((event: MouseEvent | TouchEvent | null) => {
    if (event) moved.current = true;
  }, []);
}
