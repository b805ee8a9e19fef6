import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessTokenVerifier } from './access-token-verifier.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { ServiceAccount } from './service-account.entity.js';
import { ServiceAccountStatus } from './service-account-status.js';
import { ServiceAccountsRepository } from './service-accounts.repository.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';
import { ServiceAccountsService } from './service-accounts.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([ServiceAccount])],
  controllers: [TokenController],
  providers: [TokenService, AccessTokenVerifier, JwtAuthGuard, ServiceAccountStatus, ServiceAccountsService, ServiceAccountsRepository],
  exports: [JwtAuthGuard, ServiceAccountStatus, ServiceAccountsService],
})
export class AuthModule {}
