// Whether JupyterLab shows a dark theme; follows theme switches while the widget is open.

import { useEffect, useState } from "react";

export function useDarkTheme(): boolean {
  const read = () => document.body.dataset.jpThemeLight === "false";
  const [dark, setDark] = useState(read);
  useEffect(() => {
    const observer = new MutationObserver(() => setDark(read()));
    observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
    return () => observer.disconnect();
  }, []);
  return dark;
}
