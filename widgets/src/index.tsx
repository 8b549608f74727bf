// Entry point loaded by anywidget: `export default { render }`, render returns its cleanup.

import { createRender } from "@anywidget/react";
import "@xyflow/react/dist/style.css";
import "./style.css";
import { Builder } from "./Builder";

const render = createRender(Builder);

export default { render };
