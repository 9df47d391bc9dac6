import { render } from "preact";
import { ChatController } from "./chat-controller.js";
import { App } from "./ui/app.js";
import "./styles.css";

const controller = new ChatController();
// A handle for the browser tests and for trying reconnects from the console.
(window as unknown as { agentwire: ChatController }).agentwire = controller;
controller.start();
render(<App controller={controller} />, document.getElementById("app")!);
