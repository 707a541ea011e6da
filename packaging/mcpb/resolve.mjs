// Prints the command, arguments and environment that Claude Desktop would
// start for an unpacked bundle on this machine, as JSON. It calls the
// resolver Claude Desktop itself uses, from the pinned @anthropic-ai/mcpb:
// the manifest's mcp_config with this platform's override applied and
// ${__dirname}, ${HOME}, ... and ${user_config.*} (the user's values over
// the manifest's defaults) substituted.
//
//   node resolve.mjs <unpacked bundle dir> ['{"data_dir": "/tmp/x"}']
//
// scripts/dist's bundle test starts the binary exactly as this prints.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve, sep } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const [dir, userJSON] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node resolve.mjs <unpacked bundle dir> [user config JSON]");
  process.exit(2);
}
const bundle = resolve(dir);
const manifest = JSON.parse(readFileSync(join(bundle, "manifest.json"), "utf8"));
const home = homedir();
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: bundle,
  systemDirs: {
    HOME: home,
    DESKTOP: join(home, "Desktop"),
    DOCUMENTS: join(home, "Documents"),
    DOWNLOADS: join(home, "Downloads"),
  },
  userConfig: userJSON ? JSON.parse(userJSON) : {},
  pathSeparator: sep,
});
if (!config) {
  console.error("the manifest gives no MCP configuration (is a required user_config value missing?)");
  process.exit(1);
}
process.stdout.write(JSON.stringify(config) + "\n");
