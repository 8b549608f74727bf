// What a binding is: from the notebook's callables, or else asked of Python.

import { useEffect, useState } from "react";
import type { CallableInfo } from "../protocol";
import type { Inspect } from "./useKernel";

export function useCallableInfo(binding: string | null, callables: CallableInfo[], inspect: Inspect) {
  const listed = binding ? callables.find((c) => c.binding === binding) : undefined;
  const [remote, setRemote] = useState<{ binding: string; info: CallableInfo | null; error: string | null } | null>(null);
  useEffect(() => {
    if (!binding || listed) return;
    let live = true;
    inspect(binding).then((reply) => live && setRemote({ binding, ...reply }));
    return () => {
      live = false;
    };
  }, [binding, listed, inspect]);
  if (!binding) return { info: null, error: null };
  if (listed) return { info: listed, error: null };
  return remote?.binding === binding ? remote : { info: null, error: null };
}
