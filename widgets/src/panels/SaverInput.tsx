// The saver (checkpointer URL) runs save their threads to.
//
// Python syncs the URL with its password masked (the password never leaves the kernel);
// what the user types shows as typed while the box has focus, masked once it has not.

import { useEffect, useState } from "react";
import { maskUrl } from "../redact";

export function SaverInput(props: { saver: string; onSaver(url: string): void }) {
  const [text, setText] = useState(props.saver);
  const [editing, setEditing] = useState(false);
  useEffect(() => setText(props.saver), [props.saver]);
  const apply = () => text.trim() !== props.saver && props.onSaver(text.trim());
  return (
    <label
      className="graphnb-field"
      title="where runs save their threads: memory://, sqlite:///threads.db, postgresql://..., mysql://... (a password stays in the kernel and shows as ***)"
    >
      saver (checkpointer URL)
      <input
        data-testid="run-saver"
        placeholder="none: runs are not saved"
        autoComplete="off"
        spellCheck={false}
        value={editing ? text : maskUrl(text)}
        onFocus={() => setEditing(true)}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          setEditing(false);
          apply();
        }}
        onKeyDown={(e) => e.key === "Enter" && apply()}
      />
    </label>
  );
}
