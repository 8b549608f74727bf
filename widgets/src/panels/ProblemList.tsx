// A list of problems, one a line; a problem that names a node is a link that selects the
// node and centres the view on it.

import type { ProblemInfo } from "../protocol";

export function ProblemList(props: { problems: ProblemInfo[]; onSelectNode(id: string): void; testid: string }) {
  return (
    <ul className="graphnb-problems" data-testid={props.testid}>
      {props.problems.map((p, i) => (
        <li key={i} data-testid={`problem-${p.code}`}>
          <span className="graphnb-tag">{p.code}</span>{" "}
          {p.nodes.length ? (
            <button
              type="button"
              className="graphnb-link"
              data-node={p.nodes[0]}
              title={`select ${p.nodes[0]} and show it`}
              onClick={() => props.onSelectNode(p.nodes[0])}
            >
              {p.message}
            </button>
          ) : (
            <span>{p.message}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
