// The saver (checkpointer URL) runs save their threads to.

import { useEffect, useState } from "react";

export function SaverInput(props: { saver: string; onSaver(url: string): void }) {
  const [text, setText] = useState(props.saver);
  useEffect(() => setText(props.saver), [props.saver]);
  const apply = () => text.trim() !== props.saver && props.onSaver(text.trim());
  return (
    <label className="graphnb-field" title="where runs save their threads: memory://, sqlite:///threads.db, postgresql://..., mysql://...">
      saver (checkpointer URL)
      <input
        data-testid="run-saver"
        placeholder="none: runs are not saved"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => e.key === "Enter" && apply()}
      />
    </label>
  );
}
