export { SecretBox, type SealedSecret } from './secretBox';
export { secretKeyEnv } from './secretKeyEnv';
