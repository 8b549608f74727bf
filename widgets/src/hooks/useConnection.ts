// Whether this view still talks to its widget in the kernel.
//
// A restarted (or dead, or replaced) kernel has no widget behind this view: its edits would
// go nowhere, so the view says so and stops editing for good (running the cell again makes
// a new view). A lost connection to a live kernel only pauses editing until it is back.

import type { AnyModel } from "@anywidget/types";
import { useEffect, useState } from "react";
import type { Model } from "../protocol";

type Signal<T> = {
  connect(slot: (sender: unknown, value: T) => void): boolean;
  disconnect(slot: (sender: unknown, value: T) => void): boolean;
};

/** What JupyterLab's kernel connection offers (its widget manager's `kernel`). */
type KernelConnection = {
  status: string;
  connectionStatus: string;
  isDisposed: boolean;
  statusChanged: Signal<string>;
  connectionStatusChanged: Signal<string>;
  disposed: Signal<void>;
};

export type Connection = { live: true } | { live: false; reason: string; final: boolean };

function kernelOf(model: AnyModel<Model>): KernelConnection | null {
  try {
    const kernel = (model.widget_manager as { kernel?: KernelConnection }).kernel;
    return kernel && typeof kernel.statusChanged?.connect === "function" ? kernel : null;
  } catch {
    return null; // a host without kernels (a static page): always live
  }
}

const LOST: Record<string, string> = {
  restarting: "the kernel restarted",
  autorestarting: "the kernel restarted",
  dead: "the kernel died",
};

export function useConnection(model: AnyModel<Model>): Connection {
  const [lost, setLost] = useState<string | null>(null);
  const [away, setAway] = useState<string | null>(null);
  useEffect(() => {
    const kernel = kernelOf(model);
    if (!kernel) return;
    const onStatus = (_: unknown, status: string) => {
      if (status in LOST) setLost((before) => before ?? LOST[status]);
    };
    const onConnection = (_: unknown, status: string) =>
      setAway(status === "connected" ? null : status === "connecting" ? "reconnecting to the kernel" : "the kernel is disconnected");
    const onDisposed = () => setLost((before) => before ?? "the notebook's kernel was shut down or changed");
    if (kernel.isDisposed) onDisposed();
    else {
      onStatus(kernel, kernel.status);
      onConnection(kernel, kernel.connectionStatus);
    }
    kernel.statusChanged.connect(onStatus);
    kernel.connectionStatusChanged.connect(onConnection);
    kernel.disposed.connect(onDisposed);
    return () => {
      kernel.statusChanged.disconnect(onStatus);
      kernel.connectionStatusChanged.disconnect(onConnection);
      kernel.disposed.disconnect(onDisposed);
    };
  }, [model]);
  if (lost) return { live: false, reason: lost, final: true };
  if (away) return { live: false, reason: away, final: false };
  return { live: true };
}
