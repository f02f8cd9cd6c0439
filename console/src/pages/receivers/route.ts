import type { Router } from 'express';
import type { ConsoleDeps } from '../../app';

export function registerReceivers(_router: Router, _deps: ConsoleDeps): void {}
