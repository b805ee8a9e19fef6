import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { JwtStrategy } from './jwt.strategy.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { ServiceAccountStatus } from './service-account-status.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';
import { ServiceAccountsService } from './service-accounts.service.js';

@Module({
  imports: [PassportModule],
  controllers: [TokenController],
  providers: [TokenService, JwtStrategy, JwtAuthGuard, ServiceAccountStatus, ServiceAccountsService],
  exports: [JwtAuthGuard, ServiceAccountStatus, ServiceAccountsService],
})
export class AuthModule {}
