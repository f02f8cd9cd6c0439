export {
  listenGrpcService,
  type GrpcServiceSettings,
  type ListeningGrpcService,
} from './listenGrpcService';
export { closeHttpServer, listenHttp } from '../httpServer';
export { startRecurringRounds, type RecurringRounds } from './recurringRounds';
