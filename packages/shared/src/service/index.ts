export {
  listenGrpcService,
  type GrpcServiceSettings,
  type ListeningGrpcService,
} from './listenGrpcService';
