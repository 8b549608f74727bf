// A state's fields as a two-column table, the changed ones highlighted: the state after a
// step, a checkpoint of the history, a node's input and writes.

import type { Json } from "../protocol";

export function FieldTable(props: {
  values: Record<string, Json>;
  /** Rows are `${testid}-${field}`; the table itself is `testid`. */
  testid: string;
  changed?: readonly string[];
  /** Shown in a row of its own when there are no fields. */
  empty?: string;
}) {
  const entries = Object.entries(props.values);
  return (
    <table className="graphnb-fields" data-testid={props.testid}>
      <tbody>
        {entries.map(([name, value]) => {
          const changed = props.changed?.includes(name) ?? false;
          return (
            <tr key={name} data-testid={`${props.testid}-${name}`} data-changed={changed} className={changed ? "graphnb-changed" : ""}>
              <td>{name}</td>
              <td>
                <code>{JSON.stringify(value)}</code>
              </td>
            </tr>
          );
        })}
        {!entries.length && props.empty && (
          <tr>
            <td className="graphnb-muted">{props.empty}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
