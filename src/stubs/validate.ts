/**
 * The stub language's validation, in one import: stubs (`validate_stub.ts`), their
 * responses (`validate_response.ts`), config documents (`validate_config.ts`), the warnings
 * of a valid config (`warnings.ts`) and the shared field checks (`checks.ts`). Each rule and
 * its message lives in exactly one of those; this file only hands their names on.
 * @module
 */

export { checkHeaders, checkJsonValue, checkMethod, describe, HEADER_NAME, STUB_METHODS } from "./checks.ts";
export { findShadowedStubs } from "./shadow.ts";
export { denoWireWarnings, stubWarnings } from "./warnings.ts";
export { didYouMean, unknownField } from "../util/hint.ts";
export type { Problem } from "./problem.ts";
export { BASE64, checkDelay, checkStatus, MAX_DELAY_MS, NULL_BODY_STATUSES } from "./validate_response.ts";
export {
  checkUpstream,
  ENTRY_FIELDS,
  PATTERN_FIELDS,
  type RequestPattern,
  SEQUENCE_MODES,
  STUB_FIELDS,
  validatePattern,
  validateStub,
  type ValidateStubOptions,
} from "./validate_stub.ts";
export { type Config, CONFIG_FIELDS, ORIGIN, validateConfig } from "./validate_config.ts";
