// Uploads a file with node-wpapi, as a site or an import tool would: discovery from the site's
// address, then .media().file(path).create({...}) on the cms/v2 namespace. Prints the created
// attachment as JSON; exits non-zero with the error otherwise.
//   node upload_media.js <site url> <user> <application password> <file> <title>
"use strict";
const WPAPI = require("wpapi");

async function main() {
  const [url, username, password, file, title] = process.argv.slice(2);
  const site = await WPAPI.discover(url);
  site.auth({ username, password });
  const created = await site.namespace("cms/v2").media().file(file).create({ title, alt_text: "Uploaded by node-wpapi" });
  process.stdout.write(JSON.stringify(created));
}

main().catch((error) => {
  process.stderr.write(String(error && (error.stack || JSON.stringify(error))) + "\n");
  process.exit(1);
});
