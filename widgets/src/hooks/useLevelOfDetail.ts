// Level of detail: zoomed out (a big graph fitted into view), node cards show their name
// alone, larger, and hide the binding, durations and errors, so names stay readable.

import { useStore } from "@xyflow/react";
import { useEffect } from "react";

/** Below this zoom the canvas draws names only. */
export const DETAIL_ZOOM = 0.6;

export function useLevelOfDetail(wrapper: React.RefObject<HTMLDivElement | null>) {
  const far = useStore((s) => s.transform[2] < DETAIL_ZOOM);
  useEffect(() => {
    const el = wrapper.current;
    if (!el) return;
    if (far) el.dataset.detail = "names";
    else delete el.dataset.detail;
  }, [far, wrapper]);
}
