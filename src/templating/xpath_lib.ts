/**
 * The `xpath` package typed by the part stubtool uses (./xpath_types.d.ts), imported by
 * src/templating/engine.ts only when an XML condition needs it.
 * @module
 */

// @ts-types="./xpath_types.d.ts"
import xpath from "xpath";

export default xpath;
