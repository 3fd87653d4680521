// Parse each file named on the command line with the real Mermaid parser (mermaid.parse) under jsdom.
// Prints "ok <diagramType> <file>" per file; exits 1 with Mermaid's message on the first that fails.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

for (const file of process.argv.slice(2)) {
  try {
    const parsed = await mermaid.parse(readFileSync(file, "utf8"));
    console.log(`ok ${parsed.diagramType} ${file}`);
  } catch (error) {
    console.error(`${file}: ${error?.message ?? String(error)}`);
    process.exit(1);
  }
}
