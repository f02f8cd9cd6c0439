// Loaded by jest through Node's own resolution: relative imports only, never @brand/*.
import { buildServices } from '../../packages/testkit/src/build';

/** The fault suite runs the processes from dist: build them first (BRAND_TEST_SKIP_BUILD=1 skips). */
export default function globalSetup(): void {
  buildServices();
}
