/**
 * How an answer goes out: after the stub's delay, and broken (`fault`) or slowed down
 * (`throttle`) on purpose.
 * @module
 */

import type { Delay, Dribble } from "../../stubs/model.ts";
import { type Deadlines, delayMs } from "../deadlines.ts";
import { dribbled, type Fault, faulted, throttled } from "./faults.ts";
import type { Respond } from "../response.ts";

/** How a stub's answers are delivered; every field optional (the common stub has none). */
export interface Delivery {
  /** Wait before answering. */
  delay?: Delay;
  /** The answer breaks on purpose. */
  fault?: Fault;
  /** The body goes out at this many bytes per second. */
  throttle?: number;
  /** The body goes out in pieces spread over a time. */
  dribble?: Dribble;
}

/** `respond`, sending the answer broken or slowly when the delivery says so (else `respond` itself). */
export function deliveringRespond<R>(delivery: Delivery, deadlines: Deadlines, respond: Respond<R>): Respond<R> {
  const { fault, throttle, dribble } = delivery;
  if (fault !== undefined) return (head, body) => respond(...faulted(fault, head, body));
  if (throttle !== undefined) return (head, body) => respond(...throttled(head, body, throttle, deadlines.signal));
  if (dribble !== undefined) return (head, body) => respond(...dribbled(head, body, dribble, deadlines.signal));
  return respond;
}

/** Runs `answer` now, or after `delay` (cut short when the shutdown grace runs out). */
export function afterDelay<R>(
  delay: Delay | undefined,
  deadlines: Deadlines,
  answer: () => R | Promise<R>,
): R | Promise<R> {
  if (delay === undefined) return answer();
  return deadlines.sleep(delayMs(delay)).then(answer);
}
