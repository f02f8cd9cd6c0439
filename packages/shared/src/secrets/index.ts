export { runResealProcess, type ResealOutcome } from './resealProcess';
export { SecretBox, type SealedSecret } from './secretBox';
export { secretKeyEnv } from './secretKeyEnv';
