// The Node suite's entry (`npm run test:node` = `node --test tests/node/all.mjs`): one
// process, so the package is built, packed and installed once for every file.
import "./contents.mjs";
import "./api.mjs";
import "./types.mjs";
import "./bin.mjs";
import "./wiremock_admin.mjs";
import "./readme.mjs";
